// The views of a run: headline figures, and plots over time (workload, queue, fleet,
// latency, KV, cost) and CDFs, plus the tenant table and the comparison with the pinned run.
#pragma once

#include <string>

#include <imgui.h>

#include "ui/dash_model.h"
#include "ui/loaded_run.h"
#include "ui/plot/axis_view.h"

namespace tidal::ui {

struct ViewsState {
  plot::AxisView compare_axis;  // the comparison's own time axis, spanning both runs
  std::string report_path;      // the "export report" field
};

// A row of headline figures: requests, SLO attainment, p99 TTFT, throughput, cost.
void draw_headline(const LoadedRun& run);

// workload, queue, fleet, latency, cdf, kv and cost.
void draw_plot_view(DashModel& model, View view);

void draw_tenants_view(const LoadedRun& run);
void draw_compare_view(DashModel& model, ViewsState& state);

// While a run goes: its stage, a progress bar with a cancel button and progress over wall time.
void draw_progress_strip(DashModel& model);

// The size of one cell when the space left is split into `columns` x `rows` plots.
ImVec2 grid_cell(int columns, int rows);

}  // namespace tidal::ui
