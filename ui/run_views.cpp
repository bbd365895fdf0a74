#include "ui/run_views.h"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "ui/plot/plot.h"
#include "ui/theme.h"

namespace tidal::ui {
namespace {

using plot::Series;
using plot::SeriesStyle;
using plot::Unit;

ImU32 color(size_t i) {
  return palette().series[i % 8];
}

Series line(std::string label, const std::vector<double>& x, const std::vector<double>& y,
            size_t color_index, SeriesStyle style = SeriesStyle::line) {
  return Series{std::move(label), x, y, {}, color(color_index), style};
}

void figure(const char* label, const std::string& value) {
  ImGui::BeginGroup();
  ImGui::TextDisabled("%s", label);
  ImGui::TextUnformatted(value.c_str());
  ImGui::EndGroup();
  ImGui::SameLine(0.0f, 28.0f);
}

std::string optional_value(const std::optional<double>& v, Unit unit) {
  return v ? plot::format_value(*v, unit) : "-";
}

void workload_view(const RunSeries& s, plot::AxisView& axis) {
  std::vector<Series> arrivals{line("all", s.mid_s, s.arrival_rate, 0)};
  if (s.tenant_arrival_rate.size() > 1) {
    for (size_t t = 0; t < s.tenant_arrival_rate.size(); ++t) {
      arrivals.push_back(
          line(s.tenant_arrival_rate[t].name, s.mid_s, s.tenant_arrival_rate[t].values, t + 1));
    }
  }
  const std::string note =
      fmt::format("mean {}, peak {}, peak/mean {:.1f}x",
                  plot::format_value(s.mean_arrival_rate, Unit::requests_per_s),
                  plot::format_value(s.peak_arrival_rate, Unit::requests_per_s), s.peak_to_mean);
  const ImVec2 cell = grid_cell(1, 2);
  plot::draw_plot("arrivals",
                  {"Arrival rate", note, Unit::run_time, Unit::requests_per_s, &axis, {}}, arrivals,
                  cell);
  const Series tokens[] = {line("output", s.mid_s, s.output_tokens_per_s, 2)};
  plot::draw_plot("tokens", {"Output tokens", "", Unit::run_time, Unit::tokens_per_s, &axis, {}},
                  tokens, grid_cell(1, 1));
}

void queue_view(const RunSeries& s, plot::AxisView& axis) {
  std::vector<Series> queue{line("in replicas", s.end_s, s.queue_depth, 1)};
  if (!s.queued_at_router.empty()) {
    queue.push_back(line("at the router", s.end_s, s.queued_at_router, 3));
  }
  const std::string queue_note = "waiting and swapped-out requests at each interval's end";
  plot::draw_plot("queue", {"Queue depth", queue_note, Unit::run_time, Unit::count, &axis, {}},
                  queue, grid_cell(1, 2));
  const Series running[] = {line("running", s.end_s, s.running, 0)};
  const std::string running_note = "requests running over all replicas";
  plot::draw_plot("running",
                  {"Running batch size", running_note, Unit::run_time, Unit::count, &axis, {}},
                  running, grid_cell(1, 1));
}

// Lifecycle states keep their colour whatever the timeline holds: serving blue, cold starts
// (loading) orange, provisioning red, requested purple, draining yellow, stopped grey.
ImU32 state_color(const std::string& state, size_t index) {
  if (state == "warm") return color(0);
  if (state == "starting" || state == "loading") return color(1);
  if (state == "provisioning") return color(3);
  if (state == "requested") return color(4);
  if (state == "draining") return color(5);
  if (state == "stopped") return color(7);
  return color(index + 2);
}

// "3 scale-ups, 2 scale-downs; cold start 20.7 s (h100)" from summary.json `fleet` (runs of
// the fleet simulation).
std::string fleet_note(const reports::RunSummary& m) {
  std::string note = "stacked by lifecycle state (cold starts show as loading)";
  if (!m.fleet) return note;
  const reports::FleetFigures& f = *m.fleet;
  note += fmt::format("; {} scale-ups, {} scale-downs", f.num_scale_ups, f.num_scale_downs);
  if (f.num_spot_interruptions > 0) {
    note += fmt::format(", {} spot interruptions", f.num_spot_interruptions);
  }
  for (const reports::PoolColdStart& pool : f.pools) {
    for (const auto& [stage, seconds] : pool.stages_s) {
      if (stage != "total_s") continue;
      note += fmt::format("; cold start {} ({}{})", plot::format_value(seconds, Unit::latency),
                          pool.pool, pool.from_snapshot ? ", snapshot" : "");
    }
  }
  return note;
}

void fleet_view(const LoadedRun& run, plot::AxisView& axis) {
  const RunSeries& s = run.series;
  std::vector<Series> states;
  for (size_t i = 0; i < s.replicas_by_state.size(); ++i) {
    const std::string& name = s.replicas_by_state[i].name;
    if (name == "stopped") continue;  // released replicas cost nothing and hold no GPU
    states.push_back(Series{name, s.start_s, s.replicas_by_state[i].values, s.end_s,
                            state_color(name, i), SeriesStyle::stacked_area});
  }
  plot::draw_plot(
      "replicas",
      {"Replicas", fleet_note(run.data.summary), Unit::run_time, Unit::count, &axis, {}}, states,
      grid_cell(1, 2));
  const Series util[] = {line("busy share", s.end_s, s.utilization, 2)};
  plot::draw_plot("utilization", {"Utilization", "", Unit::run_time, Unit::share, &axis, 1.0}, util,
                  grid_cell(1, 1));
}

void percentile_plot(const char* id, const char* title, const PercentileSeries& p,
                     const LoadedRun& run, plot::AxisView& axis, int rows_left) {
  const RunSeries& s = run.series;
  const Series series[] = {line("p50", s.mid_s, p.p50, 0), line("p90", s.mid_s, p.p90, 1),
                           line("p99", s.mid_s, p.p99, 3)};
  // While a run goes, a recent interval holds only the requests that already ended.
  const char* note =
      run.partial ? "by arrival interval, requests ended so far" : "by arrival interval";
  plot::draw_plot(id, {title, note, Unit::run_time, Unit::latency, &axis, {}}, series,
                  grid_cell(1, rows_left));
}

void latency_view(const LoadedRun& run, plot::AxisView& axis) {
  percentile_plot("ttft", "TTFT", run.series.ttft, run, axis, 3);
  percentile_plot("tpot", "TPOT", run.series.tpot, run, axis, 2);
  percentile_plot("e2e", "E2E", run.series.e2e, run, axis, 1);
}

void cdf_view(const LoadedRun& run, const LoadedRun* pinned) {
  const auto cdf_plot = [&](const char* id, const char* title, const Cdf RunSeries::*member,
                            int rows_left) {
    std::vector<Series> series{line(run.label, (run.series.*member).x, (run.series.*member).y, 0)};
    if (pinned != nullptr) {
      series.push_back(line("pinned: " + pinned->label, (pinned->series.*member).x,
                            (pinned->series.*member).y, 1, SeriesStyle::dashed));
    }
    plot::draw_plot(id, {title, "finished requests", Unit::latency, Unit::share, nullptr, 1.0},
                    series, grid_cell(1, rows_left));
  };
  cdf_plot("ttft_cdf", "TTFT CDF", &RunSeries::ttft_cdf, 3);
  cdf_plot("tpot_cdf", "TPOT CDF", &RunSeries::tpot_cdf, 2);
  cdf_plot("e2e_cdf", "E2E CDF", &RunSeries::e2e_cdf, 1);
}

void kv_view(const RunSeries& s, plot::AxisView& axis) {
  const Series kv[] = {line("KV blocks used", s.end_s, s.kv_usage, 4)};
  plot::draw_plot("kv",
                  {"KV cache use", "used / total GPU KV blocks over all replicas", Unit::run_time,
                   Unit::share, &axis, 1.0},
                  kv, grid_cell(1, 2));
  const Series util[] = {line("busy share", s.end_s, s.utilization, 2)};
  plot::draw_plot("kv_util", {"Utilization", "", Unit::run_time, Unit::share, &axis, 1.0}, util,
                  grid_cell(1, 1));
}

void cost_view(const LoadedRun& run, plot::AxisView& axis) {
  if (run.partial) {
    ImGui::TextWrapped(
        "Dollars come from the billing ledger, which prices the run's intervals when the run "
        "completes; the cost plots appear then.");
    return;
  }
  const RunSeries& s = run.series;
  const reports::RunSummary& m = run.data.summary;
  if (!m.priced) {
    ImGui::TextWrapped(
        "Not priced: an engine run's summary.json records no GPU type or price, so it has no "
        "cost (simulate the same workload for dollars).");
    return;
  }
  std::string note =
      fmt::format("total {}, {} GPU-hours", plot::format_value(m.dollars, Unit::dollars),
                  plot::format_value(m.gpu_hours, Unit::count));
  for (const auto& [state, dollars] : m.dollars_by_state) {
    note += fmt::format(", {} {}", state, plot::format_value(dollars, Unit::dollars));
  }
  const Series dollars[] = {line("cumulative", s.end_s, s.cumulative_dollars, 5)};
  plot::draw_plot("dollars", {"Cost", note, Unit::run_time, Unit::dollars, &axis, {}}, dollars,
                  grid_cell(1, 2));
  const Series per_token[] = {line("$/1M tokens so far", s.end_s, s.dollars_per_1m_tokens, 1)};
  plot::draw_plot(
      "per_token",
      {"Cost per million tokens",
       fmt::format("input + output tokens of finished requests; whole run: {} in, {} out",
                   optional_value(m.dollars_per_1m_input_tokens, Unit::dollars_per_1m),
                   optional_value(m.dollars_per_1m_output_tokens, Unit::dollars_per_1m)),
       Unit::run_time,
       Unit::dollars_per_1m,
       &axis,
       {}},
      per_token, grid_cell(1, 1));
}

// The figures of a run in progress or cancelled: the requests that ended so far.
void partial_headline(const LoadedRun& run) {
  const reports::RunSummary& m = run.data.summary;
  const RunSeries& s = run.series;
  const auto so_far = [](const Cdf& cdf) {
    return cdf.x.empty() ? std::string("-")
                         : plot::format_value(nearest_rank(cdf.x, 99.0), Unit::latency);
  };
  figure("requests ended",
         fmt::format(
             "{} / {}",
             plot::format_value(static_cast<double>(m.num_finished + m.num_rejected), Unit::count),
             plot::format_value(static_cast<double>(m.num_requests), Unit::count)));
  figure("finished", plot::format_value(static_cast<double>(m.num_finished), Unit::count));
  figure("rejected", plot::format_value(static_cast<double>(m.num_rejected), Unit::count));
  figure("simulated", plot::format_value(m.duration_s, Unit::run_time));
  figure("TTFT p99 so far", so_far(s.ttft_cdf));
  figure("E2E p99 so far", so_far(s.e2e_cdf));
  ImGui::NewLine();
}

}  // namespace

ImVec2 grid_cell(int columns, int rows) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = ImGui::GetStyle().ItemSpacing.y;
  return ImVec2((avail.x - gap * static_cast<float>(columns - 1)) / static_cast<float>(columns),
                (avail.y - gap * static_cast<float>(rows - 1)) / static_cast<float>(rows));
}

void draw_headline(const LoadedRun& run) {
  if (run.partial) return partial_headline(run);
  const reports::RunSummary& m = run.data.summary;
  figure(
      "requests",
      fmt::format("{} / {}", plot::format_value(static_cast<double>(m.num_finished), Unit::count),
                  plot::format_value(static_cast<double>(m.num_requests), Unit::count)));
  figure("SLO attainment", plot::format_value(m.slo_attainment, Unit::share));
  figure("TTFT p99", optional_value(m.ttft.p99_s, Unit::latency));
  figure("TPOT p99", optional_value(m.tpot.p99_s, Unit::latency));
  figure("E2E p99", optional_value(m.e2e.p99_s, Unit::latency));
  figure("output", plot::format_value(m.output_tokens_per_s, Unit::tokens_per_s));
  if (m.priced) {
    figure("cost", plot::format_value(m.dollars, Unit::dollars));
    figure("$ / 1M tokens", optional_value(m.dollars_per_1m_tokens, Unit::dollars_per_1m));
  } else {
    figure("cost", "not priced");
  }
  ImGui::NewLine();
}

void draw_plot_view(DashModel& model, View view) {
  const LoadedRun& run = *model.shown();
  plot::AxisView& axis = model.time_axis();
  switch (view) {
    case View::workload:
      return workload_view(run.series, axis);
    case View::queue:
      return queue_view(run.series, axis);
    case View::fleet:
      return fleet_view(run, axis);
    case View::latency:
      return latency_view(run, axis);
    case View::cdf:
      return cdf_view(run, model.pinned() != &run ? model.pinned() : nullptr);
    case View::kv:
      return kv_view(run.series, axis);
    case View::cost:
      return cost_view(run, axis);
    case View::tenants:
    case View::compare:
      return;
  }
}

void draw_progress_strip(DashModel& model) {
  const RunJob& job = model.job();
  ImGui::Text("%s: %s%s", job.out_dir().c_str(), run_stage_text(job.stage()),
              job.cancel_requested() ? " (cancelling)" : "");
  const double fraction = job.fraction_done();
  ImGui::ProgressBar(
      static_cast<float>(fraction), ImVec2(ImGui::GetContentRegionAvail().x - 110.0f, 0.0f),
      fmt::format("{:.0f}% of requests done, {:.1f} s", fraction * 100.0, job.wall_s()).c_str());
  ImGui::SameLine();
  if (ImGui::Button("Cancel (Esc)", ImVec2(-FLT_MIN, 0.0f))) model.cancel_run();
  std::vector<double> wall, done;  // [num progress points]
  for (const ProgressPoint& p : job.progress_history()) {
    wall.push_back(p.wall_s);
    done.push_back(p.fraction_done);
  }
  const Series series[] = {line("requests done", wall, done, 0)};
  plot::draw_plot("progress",
                  {"Progress", "the views below plot the intervals closed so far", Unit::wall_time,
                   Unit::share, nullptr, 1.0},
                  series, ImVec2(ImGui::GetContentRegionAvail().x, 150.0f));
}

}  // namespace tidal::ui
