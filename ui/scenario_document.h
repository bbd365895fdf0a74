// The scenario being edited in the dashboard: the JSON as the user wrote it, checked by the
// same parser `tidal simulate` uses after every edit. An invalid edit is kept (so it can be
// fixed) and the parser's InputError, with the JSON path it names, is shown beside the field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/scenario.h"

namespace tidal::ui {

class ScenarioDocument {
 public:
  // The built-in default scenario (examples/default.json).
  static ScenarioDocument from_default();
  // A scenario file. InputError when it cannot be read or is not JSON (the message the CLI
  // gives); a scenario that parses as JSON but is invalid loads, with its error shown.
  static ScenarioDocument from_file(const std::string& path);
  // A trace replayed on the default scenario's fleet: one workload reading `trace_path`
  // (absolute), no duration cut, named after the file. InputError when the file is missing.
  static ScenarioDocument from_trace(const std::string& trace_path);

  // What the user wrote (keys they left out take their defaults).
  const nlohmann::ordered_json& raw() const { return raw_; }
  // Every key with the value in force, from the last edit that parsed (shows defaults).
  const nlohmann::ordered_json& resolved() const { return resolved_; }
  // Where it came from: a path, or "<built-in default scenario>"; labels messages.
  const std::string& label() const { return label_; }
  // The file it was read from or last saved to; empty for the built-in default and traces.
  const std::string& path() const { return path_; }

  bool valid() const { return error_.empty(); }
  // The InputError message of the last check (or of a failed run's workload loading).
  const std::string& error() const { return error_; }
  // The JSON path that message names ("fleet.pools[0].tp"), empty when it names none.
  const std::string& error_path() const { return error_path_; }
  // The parsed scenario; requires valid().
  const sim::Scenario& scenario() const { return *scenario_; }

  // Counts edits, so views can cache what they derive from the document.
  int64_t revision() const { return revision_; }
  bool modified() const { return modified_; }

  // Sets the value at a JSON path (see json_path.h) and checks the result.
  void set(std::string_view json_path, nlohmann::ordered_json value);
  // Removes the key at a JSON path, so its default applies again.
  void reset(std::string_view json_path);
  // Records an InputError found later, e.g. a bad generator spec when the run loads workloads.
  void report_error(const std::string& message);
  // Writes the JSON (two-space indent); later messages name `path`. InputError on failure.
  void save(const std::string& path);

 private:
  ScenarioDocument(nlohmann::ordered_json raw, std::string label, std::string path,
                   std::string base_dir);
  void check();

  nlohmann::ordered_json raw_;
  nlohmann::ordered_json resolved_;
  std::string label_;
  std::string path_;
  std::string base_dir_;
  std::optional<sim::Scenario> scenario_;
  std::string error_;
  std::string error_path_;
  int64_t revision_ = 0;
  bool modified_ = false;
};

// The JSON path an InputError message names after its "<label>: " prefix ("scenario.json:
// fleet.pools[0].tp: must be >= 1" -> "fleet.pools[0].tp"); empty when there is none.
std::string error_json_path(std::string_view message, std::string_view label);

}  // namespace tidal::ui
