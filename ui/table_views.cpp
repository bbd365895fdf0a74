// The table views: per-tenant figures, and the comparison of the current run with the pinned
// one (delta table, changed scenario keys, overlaid plots, report export).
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "base/input_error.h"
#include "ui/comparison.h"
#include "ui/json_path.h"
#include "ui/plot/plot.h"
#include "ui/run_views.h"
#include "ui/theme.h"

namespace tidal::ui {
namespace {

using plot::Series;
using plot::SeriesStyle;
using plot::Unit;

constexpr ImGuiTableFlags kTableFlags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                                        ImGuiTableFlags_BordersOuter |
                                        ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_ScrollY;

void cell(const std::string& text) {
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(text.c_str());
}

void delta_table(const LoadedRun& pinned, const LoadedRun& current, float height) {
  if (!ImGui::BeginTable("deltas", 4, kTableFlags, ImVec2(0.0f, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("metric");
  ImGui::TableSetupColumn("pinned");
  ImGui::TableSetupColumn("current");
  ImGui::TableSetupColumn("change");
  ImGui::TableHeadersRow();
  for (const DeltaRow& row : delta_rows(pinned.data.summary, current.data.summary)) {
    ImGui::TableNextRow();
    cell(row.metric);
    cell(row.pinned ? plot::format_value(*row.pinned, row.unit) : "-");
    cell(row.current ? plot::format_value(*row.current, row.unit) : "-");
    ImGui::TableNextColumn();
    const std::optional<double> change = row.relative_change();
    if (!change) {
      ImGui::TextDisabled("-");
      continue;
    }
    const int verdict = row.verdict();
    const std::string text = fmt::format("{:+.1f}%", *change * 100.0);
    if (verdict == 0) {
      ImGui::TextDisabled("%s", text.c_str());
    } else {
      ImGui::TextColored(
          ImGui::ColorConvertU32ToFloat4(verdict > 0 ? palette().good : palette().bad), "%s %s",
          text.c_str(), verdict > 0 ? "better" : "worse");
    }
  }
  ImGui::EndTable();
}

void changes_list(const LoadedRun& pinned, const LoadedRun& current) {
  const std::vector<JsonChange> changes = json_changes(pinned.scenario, current.scenario);
  ImGui::TextDisabled("scenario changes (pinned -> current)");
  if (changes.empty()) ImGui::TextUnformatted("none: same scenario");
  for (const JsonChange& c : changes) {
    ImGui::Bullet();
    ImGui::TextWrapped("%s: %s -> %s", c.path.c_str(), c.before.c_str(), c.after.c_str());
  }
}

void overlay_plots(const LoadedRun& pinned, const LoadedRun& current, plot::AxisView& axis) {
  const RunSeries& a = pinned.series;
  const RunSeries& b = current.series;
  const double end =
      std::max(a.end_s.empty() ? 0.0 : a.end_s.back(), b.end_s.empty() ? 0.0 : b.end_s.back());
  axis.set_limits({0.0, end > 0.0 ? end : 1.0});
  const ImU32 current_color = palette().series[0];
  const ImU32 pinned_color = palette().series[1];
  const auto pair = [&](const std::vector<double>& ax, const std::vector<double>& ay,
                        const std::vector<double>& bx, const std::vector<double>& by) {
    return std::vector<Series>{Series{"current", bx, by, {}, current_color, SeriesStyle::line},
                               Series{"pinned", ax, ay, {}, pinned_color, SeriesStyle::dashed}};
  };
  const ImVec2 cell_size = grid_cell(2, 2);
  plot::draw_plot("cmp_ttft",
                  {"TTFT p99", "by arrival interval", Unit::run_time, Unit::latency, &axis, {}},
                  pair(a.mid_s, a.ttft.p99, b.mid_s, b.ttft.p99), cell_size);
  ImGui::SameLine();
  plot::draw_plot("cmp_cdf", {"TTFT CDF", "", Unit::latency, Unit::share, nullptr, 1.0},
                  pair(a.ttft_cdf.x, a.ttft_cdf.y, b.ttft_cdf.x, b.ttft_cdf.y), cell_size);
  plot::draw_plot("cmp_queue", {"Queue depth", "", Unit::run_time, Unit::count, &axis, {}},
                  pair(a.end_s, a.queue_depth, b.end_s, b.queue_depth), cell_size);
  ImGui::SameLine();
  plot::draw_plot("cmp_cost", {"Cumulative cost", "", Unit::run_time, Unit::dollars, &axis, {}},
                  pair(a.end_s, a.cumulative_dollars, b.end_s, b.cumulative_dollars), cell_size);
}

void export_row(DashModel& model, ViewsState& state) {
  if (state.report_path.empty()) {
    state.report_path = (std::filesystem::path(model.out_dir()) / "report.html").string();
  }
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
  ImGui::InputText("##report_path", &state.report_path);
  ImGui::SameLine();
  if (ImGui::Button("Export report")) {
    try {
      model.export_report(state.report_path);
    } catch (const InputError& e) {
      model.banner() = {true, e.what()};
    }
  }
}

}  // namespace

void draw_tenants_view(const LoadedRun& run) {
  const std::vector<TenantFigures>& tenants = run.series.tenants;
  if (!ImGui::BeginTable("tenants", 11, kTableFlags, ImVec2(0.0f, 0.0f))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  for (const char* header :
       {"tenant", "requests", "finished", "not finished", "SLO met", "TTFT p50", "TTFT p99",
        "TPOT p50", "E2E p99", "tokens in / out", "peak/mean"}) {
    ImGui::TableSetupColumn(header);
  }
  ImGui::TableHeadersRow();
  for (const TenantFigures& t : tenants) {
    ImGui::TableNextRow();
    cell(t.name);
    cell(plot::format_value(static_cast<double>(t.num_requests), Unit::count));
    cell(plot::format_value(static_cast<double>(t.num_finished), Unit::count));
    cell(plot::format_value(static_cast<double>(t.num_rejected), Unit::count));
    cell(plot::format_value(t.slo_attainment, Unit::share));
    cell(plot::format_value(t.ttft_p50_s, Unit::latency));
    cell(plot::format_value(t.ttft_p99_s, Unit::latency));
    cell(plot::format_value(t.tpot_p50_s, Unit::latency));
    cell(plot::format_value(t.e2e_p99_s, Unit::latency));
    cell(plot::format_value(t.input_tokens, Unit::tokens) + " / " +
         plot::format_value(t.output_tokens, Unit::tokens));
    cell(fmt::format("{:.1f}x", t.peak_to_mean));
  }
  ImGui::EndTable();
}

void draw_compare_view(DashModel& model, ViewsState& state) {
  const LoadedRun* pinned = model.pinned();
  const LoadedRun* current = model.current();
  if (pinned == nullptr || pinned == current) {
    ImGui::TextWrapped(
        "Pin a run (Ctrl+P), change one knob in the scenario, and run again (F5): the two runs "
        "then show here side by side.");
    export_row(model, state);
    return;
  }
  ImGui::Text("pinned: %s    current: %s", pinned->label.c_str(), current->label.c_str());
  export_row(model, state);
  const float table_w = std::min(720.0f, ImGui::GetContentRegionAvail().x * 0.62f);
  const float top_h = ImGui::GetContentRegionAvail().y * 0.42f;
  ImGui::BeginChild("delta", ImVec2(table_w, top_h), false);
  delta_table(*pinned, *current, top_h);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("changes", ImVec2(0.0f, top_h), false);
  changes_list(*pinned, *current);
  ImGui::EndChild();
  overlay_plots(*pinned, *current, state.compare_axis);
}

}  // namespace tidal::ui
