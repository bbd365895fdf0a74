#include "ui/scenario_document.h"

#include <filesystem>

#include <fmt/format.h>

#include "base/input_error.h"
#include "base/output_files.h"
#include "sim/default_scenario.h"
#include "ui/json_path.h"

namespace tidal::ui {
namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kDefaultLabel = "<built-in default scenario>";

bool is_path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
         c == '[' || c == ']';
}

ojson parse_or_throw(const std::string& text, const std::string& label,
                     const std::string& base_dir) {
  ojson raw = ojson::parse(text, nullptr, /*allow_exceptions=*/false);
  // The simulator's own loader words the syntax error exactly as `tidal simulate` does.
  if (raw.is_discarded()) sim::load_scenario_text(text, label, base_dir);
  if (!raw.is_object()) throw InputError(label + ": expected a JSON object (a scenario)");
  return raw;
}

}  // namespace

std::string error_json_path(std::string_view message, std::string_view label) {
  std::string_view rest = message;
  const std::string prefix = std::string(label) + ": ";
  if (rest.substr(0, prefix.size()) == prefix) rest.remove_prefix(prefix.size());
  const size_t end = rest.find(": ");
  if (end == std::string_view::npos || end == 0) return "";
  const std::string_view path = rest.substr(0, end);
  for (const char c : path) {
    if (!is_path_char(c)) return "";
  }
  return std::string(path);
}

ScenarioDocument::ScenarioDocument(ojson raw, std::string label, std::string path,
                                   std::string base_dir)
    : raw_(std::move(raw)),
      label_(std::move(label)),
      path_(std::move(path)),
      base_dir_(std::move(base_dir)) {
  check();
}

ScenarioDocument ScenarioDocument::from_default() {
  const std::string text(sim::default_scenario_json());
  return ScenarioDocument(parse_or_throw(text, kDefaultLabel, ""), kDefaultLabel, "", "");
}

ScenarioDocument ScenarioDocument::from_file(const std::string& path) {
  const std::string text = sim::read_scenario_file_text(path);
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  return ScenarioDocument(parse_or_throw(text, path, base_dir), path, path, base_dir);
}

ScenarioDocument ScenarioDocument::from_trace(const std::string& trace_path) {
  if (!std::filesystem::is_regular_file(trace_path)) {
    throw InputError(fmt::format("{}: cannot open trace file", trace_path));
  }
  const std::filesystem::path absolute = std::filesystem::absolute(trace_path).lexically_normal();
  const std::string name = absolute.stem().string();
  ojson raw = parse_or_throw(std::string(sim::default_scenario_json()), kDefaultLabel, "");
  raw["name"] = name;
  raw.erase("duration_s");
  raw["workloads"] =
      ojson::array({ojson{{"name", name}, {"trace", {{"path", absolute.string()}}}}});
  return ScenarioDocument(std::move(raw), absolute.string(), "", "");
}

void ScenarioDocument::check() {
  error_.clear();
  error_path_.clear();
  try {
    // The simulator parses nlohmann::json; the text round trip keeps the key order for us.
    scenario_ = sim::parse_scenario(nlohmann::json::parse(raw_.dump()), label_, base_dir_);
    resolved_ = sim::scenario_to_json(*scenario_);
  } catch (const InputError& e) {
    scenario_.reset();
    report_error(e.what());
  }
}

void ScenarioDocument::set(std::string_view json_path, ojson value) {
  set_at(raw_, json_path, std::move(value));
  ++revision_;
  modified_ = true;
  check();
}

void ScenarioDocument::reset(std::string_view json_path) {
  erase_at(raw_, json_path);
  ++revision_;
  modified_ = true;
  check();
}

void ScenarioDocument::report_error(const std::string& message) {
  error_ = message;
  error_path_ = error_json_path(message, label_);
}

void ScenarioDocument::save(const std::string& path) {
  base::write_output_text(path, raw_.dump(2) + "\n");
  // Relative paths inside keep resolving against the folder the document was read from.
  path_ = path;
  modified_ = false;
}

}  // namespace tidal::ui
