// A run folder read for the dashboard: its data (via the report code's reader), the series the
// views plot, and the scenario it echoes in summary.json.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "reports/run_data.h"
#include "ui/run_series.h"

namespace tidal::ui {

struct LoadedRun {
  std::string dir;
  std::string label;  // "<scenario name> (<folder name>)"
  reports::RunData data;
  RunSeries series;
  nlohmann::ordered_json scenario;  // summary.json "scenario" (object; empty when absent)
  // A run in progress or cancelled (ui/live_run.h): the intervals and requests so far, no
  // dollars, and in the summary only the name and request counts.
  bool partial = false;
};

// InputError (naming the file and column or key) when the folder is not a complete run folder.
std::shared_ptr<const LoadedRun> load_run_folder(const std::string& dir);

}  // namespace tidal::ui
