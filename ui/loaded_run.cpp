#include "ui/loaded_run.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::ui {

std::shared_ptr<const LoadedRun> load_run_folder(const std::string& dir) {
  auto run = std::make_shared<LoadedRun>();
  run->dir = dir;
  run->data = reports::load_run(dir);
  run->series = derive_series(run->data);
  const std::filesystem::path folder = std::filesystem::path(dir).lexically_normal();
  const std::string folder_name = folder.filename().empty()
                                      ? folder.parent_path().filename().string()
                                      : folder.filename().string();
  run->label = fmt::format("{} ({})", run->data.summary.scenario_name, folder_name);
  std::ifstream in(folder / "summary.json", std::ios::binary);
  const nlohmann::ordered_json summary = nlohmann::ordered_json::parse(in, nullptr, false);
  if (summary.is_object() && summary.contains("scenario") && summary["scenario"].is_object()) {
    run->scenario = summary["scenario"];
  }
  return run;
}

}  // namespace tidal::ui
