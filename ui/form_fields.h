// Form widgets over a ScenarioDocument: one table row per key, an editor chosen by the value's
// JSON type (or a combo box when the key has a fixed set of choices), the default shown when
// the user has not set the key, and the parser's message under the field it names. Edits are
// queued while the form draws and applied afterwards, so drawing never sees a half-edited
// document.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ui/scenario_document.h"

namespace tidal::ui {

// The fixed choices for the field at a JSON path (empty: free input).
using ChoicesFor = std::function<std::vector<std::string>(const std::string& json_path)>;

class FormState {
 public:
  // Queues setting (value) or resetting (nullopt) the value at `path`.
  void queue(std::string path, std::optional<nlohmann::ordered_json> value);
  // Applies the queued edits in order; true when there were any.
  bool apply(ScenarioDocument& doc);

  // Text being typed into fields that commit on Enter (arrays, unset values), by JSON path.
  std::map<std::string, std::string>& drafts() { return drafts_; }

  // Call once a frame before drawing. In the frame after the document's error changed,
  // reveal_error() is true: the form opens what holds the flagged field and scrolls to it.
  void begin_frame(const ScenarioDocument& doc);
  bool reveal_error() const { return reveal_error_; }

 private:
  std::vector<std::pair<std::string, std::optional<nlohmann::ordered_json>>> edits_;
  std::map<std::string, std::string> drafts_;
  std::string last_error_;
  bool reveal_error_ = false;
};

// True when the document's error names `json_path` or a key inside it.
bool error_within(const ScenarioDocument& doc, const std::string& json_path);

// Rows for each key of the object at `path` (keys of the resolved document first, then keys
// only the user's JSON has), objects nested as tree nodes. Call inside a 2-column table.
void object_rows(const ScenarioDocument& doc, FormState& form, const std::string& path,
                 const ChoicesFor& choices_for);

// One row: `key` and the editor of the value at `path`.
void field_row(const ScenarioDocument& doc, FormState& form, const std::string& path,
               const std::string& key, const std::vector<std::string>& choices);

// Begins the 2-column table the rows go in; returns false when it is clipped (skip EndTable).
bool begin_form_table(const char* id);

// The value shown at `path`: the user's, else the resolved default; nullptr when neither.
const nlohmann::ordered_json* shown_value(const ScenarioDocument& doc, const std::string& path,
                                          bool* is_default = nullptr);

}  // namespace tidal::ui
