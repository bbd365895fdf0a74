// One frame of the dashboard over the whole window: menu bar, toolbar (path field with recent
// files, run / cancel / pin), a banner, the scenario editor on the left and the run views on
// the right; keyboard shortcuts F5 run, Esc cancel, Ctrl+P pin, Ctrl+S save.
#pragma once

#include <string>
#include <vector>

#include "ui/dash_model.h"
#include "ui/run_views.h"
#include "ui/scenario_form.h"

namespace tidal::ui {

struct FrameState {
  ScenarioFormState form;
  ViewsState views;
  std::string load_path;        // the path field
  int view_request_frames = 0;  // frames left selecting a requested tab programmatically
};

// Loads each path (files dropped on the window, the path field), reporting failures in the
// banner.
void load_paths(DashModel& model, const std::vector<std::string>& paths);

void draw_dash_frame(DashModel& model, FrameState& state);

}  // namespace tidal::ui
