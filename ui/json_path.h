// JSON paths as tidal's messages write them ("fleet.pools[0].tp", "workloads[1].slo.ttft_s"):
// parsing, reading and writing a value at a path, and the differences between two documents.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tidal::ui {

// One step of a path: an object key, or an array index when `index` >= 0.
struct PathStep {
  std::string key;
  int64_t index = -1;
};

// InputError "json path "x": ..." for an empty path, an empty key or a malformed index.
std::vector<PathStep> parse_json_path(std::string_view path);
std::string format_json_path(const std::vector<PathStep>& steps);

// The value at `path`, or nullptr when any step is missing.
const nlohmann::ordered_json* find_at(const nlohmann::ordered_json& root, std::string_view path);

// Sets the value at `path`, creating missing objects on the way. An index must name an existing
// element or the end of the array (which appends). InputError naming the path when a step
// meets a value of the wrong kind or an index out of range.
void set_at(nlohmann::ordered_json& root, std::string_view path, nlohmann::ordered_json value);

// Removes the value at `path` (its default applies again); nothing when absent.
void erase_at(nlohmann::ordered_json& root, std::string_view path);

// A value typed in a script or a form: JSON when it parses as JSON ("2", "true", "[1,2]",
// "\"x\""), otherwise the text as a string.
nlohmann::ordered_json parse_loose_value(std::string_view text);

struct JsonChange {
  std::string path;
  std::string before;  // the compact JSON text, "(absent)" when missing
  std::string after;
};

// Every leaf that differs between `before` and `after`, in document order (keys of `before`
// first, then keys only `after` has).
std::vector<JsonChange> json_changes(const nlohmann::ordered_json& before,
                                     const nlohmann::ordered_json& after);

}  // namespace tidal::ui
