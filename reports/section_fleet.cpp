// The fleet over time: pools and their load, replicas by lifecycle state, queue depth and
// running batch, KV-cache use and busy share, cold starts — whatever timeline.csv holds. For an
// engine run: its configuration and own counters (steps, preemptions, prefix hits, speculative
// acceptance) and the queue and KV views of its timeline.
#include <algorithm>

#include <fmt/format.h>

#include "reports/cells.h"
#include "reports/chart_block.h"
#include "reports/format.h"
#include "reports/sections.h"

namespace tidal::reports {
namespace {

// A step series over the timeline: value i holds over [start_i, end_i).
Series timeline_series(const std::string& name, const TimelineRows& t,
                       const std::vector<double>& values, double divisor, SeriesStyle style) {
  Series s{name, {}, {}, style};
  for (size_t i = 0; i < t.size(); ++i) {
    s.x.push_back(t.start_s[i] / divisor);
    s.y.push_back(values[i]);
  }
  if (t.size() > 0) {
    s.x.push_back(t.end_s.back() / divisor);
    s.y.push_back(values.back());
  }
  return s;
}

// Fleet counters and each pool's cold start, by stage (summary.json fleet).
Table cold_start_table(const FleetFigures& f, const std::string& id_suffix) {
  Table table{"cold-starts" + id_suffix,
              fmt::format("Cold starts: {} replicas created, {} scale-ups, {} scale-downs, {} "
                          "spot interruptions, {} requests re-queued",
                          format_count(f.num_replicas_total), format_count(f.num_scale_ups),
                          format_count(f.num_scale_downs), format_count(f.num_spot_interruptions),
                          format_count(f.num_requeues)),
              {"pool", "peak replicas", "from snapshot"},
              {}};
  if (!f.pools.empty()) {
    for (const auto& [stage, seconds] : f.pools[0].stages_s) {
      table.columns.push_back(stage.substr(0, stage.size() - 2));  // "weight_load"
    }
  }
  for (const PoolColdStart& p : f.pools) {
    std::vector<Cell> row{text_cell(p.pool), count_cell(p.peak_replicas),
                          text_cell(p.from_snapshot ? "yes" : "no")};
    for (const auto& [stage, seconds] : p.stages_s) row.push_back(latency_cell(seconds));
    table.rows.push_back(std::move(row));
  }
  return table;
}

// The highest value over the run: of the interval maxima when the timeline has them, else of
// the end-of-interval samples (older run folders).
double peak_of(const std::vector<double>& maxima, const std::vector<double>& samples) {
  const std::vector<double>& values = maxima.empty() ? samples : maxima;
  return values.empty() ? 0.0 : *std::max_element(values.begin(), values.end());
}

// The pools' load over their steps (summary.json fleet.pools[].load).
Table load_table(const RunSummary& s, const std::string& id_suffix) {
  Table table{"pool-load" + id_suffix,
              "Load: batch and KV use over each pool's steps; MFU and MBU = the roofline's FLOPs "
              "and HBM bytes of each step over its predicted time, against the GPU's peaks",
              {"pool", "busy share", "mean batch", "p99 batch", "batch limit", "mean KV use",
               "peak KV use", "MFU", "MBU"},
              {}};
  for (const PoolFigures& p : s.pools) {
    if (!p.load) continue;
    const PoolLoad& l = *p.load;
    table.rows.push_back({text_cell(p.name), percent_cell(p.utilization),
                          significant_cell(l.mean_batch), count_cell(l.p99_batch),
                          count_cell(l.max_num_seqs), percent_cell(l.mean_kv_usage),
                          percent_cell(l.peak_kv_usage), percent_cell(l.mfu), percent_cell(l.mbu)});
  }
  return table;
}

Cell mib_cell(int64_t bytes) {
  const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
  return number_cell(mib, format_significant(mib) + " MiB");
}

// What an engine run ran: one table row of its configuration (summary.json inputs, engine,
// memory).
Table engine_config_table(const EngineFigures& e, const std::string& id_suffix) {
  Table table{"engine" + id_suffix,
              "Engine",
              {"model", "TP", "threads", "weights", "KV cache", "batching", "max seqs",
               "max batched tokens", "KV block size", "KV blocks", "CPU blocks", "prefix caching",
               "speculative", "weights per rank", "KV arena per rank"},
              {}};
  table.rows.push_back(
      {text_cell(e.model_source), count_cell(e.tp), count_cell(e.num_threads), text_cell(e.quant),
       text_cell(e.kv_dtype), text_cell(e.policy), count_cell(e.max_num_seqs),
       count_cell(e.max_num_batched_tokens), count_cell(e.block_size), count_cell(e.num_gpu_blocks),
       count_cell(e.num_cpu_blocks), text_cell(e.prefix_caching ? "on" : "off"), text_cell(e.spec),
       mib_cell(e.weight_bytes_per_rank), mib_cell(e.kv_arena_bytes_per_rank)});
  return table;
}

std::optional<double> share_of(int64_t part, int64_t whole) {
  if (whole <= 0) return std::nullopt;
  return static_cast<double>(part) / static_cast<double>(whole);
}

// The engine's own counters (summary.json run and speculative).
Table engine_figures_table(const RunSummary& s, const EngineFigures& e,
                           const std::string& id_suffix) {
  Table table{"engine-figures" + id_suffix, "Engine figures", {"figure", "value"}, {}};
  const auto row = [&table](const std::string& name, Cell cell) {
    table.rows.push_back({text_cell(name), std::move(cell)});
  };
  row("steps", count_cell(e.num_steps));
  row("busy time (executing steps)", latency_cell(e.busy_s));
  row("wall time", latency_cell(e.wall_s));
  row("preemptions (requests)", count_cell(s.num_preemptions));
  row("recompute preemptions", count_cell(e.num_recompute_preemptions));
  row("swap preemptions", count_cell(e.num_swap_preemptions));
  row("blocks swapped out / in",
      text_cell(format_count(e.num_swap_out_blocks) + " / " + format_count(e.num_swap_in_blocks)));
  row("prefix-cache hit tokens", count_cell(s.num_prefix_hit_tokens));
  row("prefix-cache blocks queried", count_cell(e.num_prefix_queried_blocks));
  row("prefix-cache blocks hit", count_cell(e.num_prefix_hit_blocks));
  row("prefix-cache block hit rate",
      percent_cell(share_of(e.num_prefix_hit_blocks, e.num_prefix_queried_blocks)));
  row("speculative decoding", text_cell(e.spec));
  row("verifications", count_cell(e.num_verifications));
  row("draft tokens", count_cell(e.num_draft_tokens));
  row("accepted draft tokens", count_cell(e.num_accepted_tokens));
  row("acceptance rate",
      percent_cell(e.num_draft_tokens > 0 ? std::optional(e.acceptance_rate) : std::nullopt));
  row("tokens per verification",
      significant_cell(e.num_verifications > 0 ? std::optional(e.mean_accepted_length)
                                               : std::nullopt));
  return table;
}

bool all_zero(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return v == 0.0; });
}

}  // namespace

Section fleet_section(const RunSection& r) {
  const RunSummary& s = r.run.summary;
  const TimelineRows& t = r.run.timeline;
  Section section{"fleet" + r.id_suffix,
                  (s.engine ? "Engine over time" : "Fleet over time") + r.title_suffix,
                  {}};

  if (s.engine) {
    section.blocks.push_back(engine_config_table(*s.engine, r.id_suffix));
    section.blocks.push_back(engine_figures_table(s, *s.engine, r.id_suffix));
  }
  Table pools{"pools" + r.id_suffix,
              "Pools",
              {"pool", "model", "GPU", "TP", "weights", "KV cache", "batching", "replicas", "GPUs",
               "KV blocks per replica", "busy share", "steps", "step-time model"},
              {}};
  for (const PoolFigures& p : s.pools) {
    pools.rows.push_back({text_cell(p.name), text_cell(p.model), text_cell(p.gpu), count_cell(p.tp),
                          text_cell(p.weight_dtype), text_cell(p.kv_dtype), text_cell(p.policy),
                          count_cell(p.num_replicas), count_cell(p.num_gpus),
                          count_cell(p.num_gpu_blocks), percent_cell(p.utilization),
                          count_cell(p.num_steps), text_cell(p.step_time_model)});
  }
  if (!s.engine) section.blocks.push_back(std::move(pools));
  Table load = load_table(s, r.id_suffix);
  if (!load.rows.empty()) section.blocks.push_back(std::move(load));
  section.blocks.push_back(KeyFigures{{
      {"busy share", percent_cell(s.utilization)},
      {"preemptions", count_cell(s.num_preemptions)},
      {"prefix-cache hit tokens", count_cell(s.num_prefix_hit_tokens)},
      {"peak queue depth",
       count_cell(static_cast<int64_t>(peak_of(t.queue_depth_max, t.queue_depth)))},
      {"peak running", count_cell(static_cast<int64_t>(peak_of(t.running_max, t.running)))},
      {"peak KV use", percent_cell(peak_of(t.kv_usage_max, t.kv_usage))},
  }});

  const TimeAxis time = time_axis_for(s.duration_s);
  XYChart replicas{"Replicas by lifecycle state", time.axis(), {"replicas"}};
  std::string states_seen;
  for (const NamedSeries* state : distinct_replica_states(t)) {
    // Stopped replicas hold no GPU; stacking them would only pile up history.
    if (state->name == "stopped" || all_zero(state->values)) continue;
    replicas.series.push_back(
        timeline_series(state->name, t, state->values, time.divisor, SeriesStyle::stacked_area));
    states_seen += (states_seen.empty() ? "" : ", ") + state->name;
  }
  // An engine run is one replica, warm throughout: its timeline has nothing to stack.
  if (!s.engine) section.blocks.push_back(xy_chart_block("replicas" + r.id_suffix, replicas));

  XYChart queue{"Queue depth and running requests", time.axis(), {"requests"}};
  queue.series.push_back(
      timeline_series("queued", t, t.queue_depth, time.divisor, SeriesStyle::step));
  queue.series.push_back(timeline_series("running", t, t.running, time.divisor, SeriesStyle::step));
  if (!t.queue_depth_max.empty()) {
    queue.series.push_back(timeline_series("queued (interval max)", t, t.queue_depth_max,
                                           time.divisor, SeriesStyle::step));
  }
  if (!t.running_max.empty()) {
    queue.series.push_back(timeline_series("running (interval max)", t, t.running_max, time.divisor,
                                           SeriesStyle::step));
  }
  if (!t.queued_at_router.empty()) {
    queue.series.push_back(timeline_series("held at the router", t, t.queued_at_router,
                                           time.divisor, SeriesStyle::step));
  }
  section.blocks.push_back(xy_chart_block("queue-running" + r.id_suffix, queue));

  XYChart use{"KV-cache use and busy share", time.axis(),
              Axis("share", AxisUnit::percent, false, 0.0, 1.0)};
  use.series.push_back(
      timeline_series("KV blocks in use", t, t.kv_usage, time.divisor, SeriesStyle::step));
  if (!t.kv_usage_max.empty()) {
    use.series.push_back(timeline_series("KV blocks in use (interval max)", t, t.kv_usage_max,
                                         time.divisor, SeriesStyle::step));
  }
  use.series.push_back(
      timeline_series("busy share", t, t.utilization, time.divisor, SeriesStyle::step));
  section.blocks.push_back(xy_chart_block("kv-utilization" + r.id_suffix, use));

  if (s.fleet) section.blocks.push_back(cold_start_table(*s.fleet, r.id_suffix));
  if (s.engine) {
    section.blocks.push_back(Paragraph{
        "An engine run serves with one replica, warm throughout: no fleet, no lifecycle "
        "states and no cold starts. Queue depth, running requests and KV-cache use are "
        "sampled after the last step ending in each interval (timeline.csv), and their "
        "interval maxima are drawn beside them; busy share = time spent executing steps."});
    return section;
  }
  std::string note = "States drawn: " + (states_seen.empty() ? std::string("none") : states_seen) +
                     " (sampled at the end of each interval; stopped replicas are not drawn).";
  const auto starting = std::find_if(t.replicas_by_state.begin(), t.replicas_by_state.end(),
                                     [](const NamedSeries& n) { return n.name == "starting"; });
  const bool scaled = s.fleet && s.fleet->num_scale_ups + s.fleet->num_scale_downs > 0;
  if (!scaled && starting != t.replicas_by_state.end() && all_zero(starting->values)) {
    note += " No replica was starting at any interval end: the fleet ran warm throughout.";
  }
  section.blocks.push_back(Paragraph{note});
  return section;
}

}  // namespace tidal::reports
