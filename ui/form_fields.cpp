#include "ui/form_fields.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include "ui/json_path.h"
#include "ui/theme.h"

namespace tidal::ui {
namespace {

using ojson = nlohmann::ordered_json;

constexpr float kKeyColumnWidth = 190.0f;

// Keys of the object at `path` as shown: resolved order, then keys only the raw JSON has.
std::vector<std::string> shown_keys(const ScenarioDocument& doc, const std::string& path) {
  std::vector<std::string> keys;
  const ojson* resolved = find_at(doc.resolved(), path);
  const ojson* raw = find_at(doc.raw(), path);
  if (resolved != nullptr && resolved->is_object()) {
    for (const auto& [key, value] : resolved->items()) keys.push_back(key);
  }
  if (raw != nullptr && raw->is_object()) {
    for (const auto& [key, value] : raw->items()) {
      if (resolved == nullptr || !resolved->is_object() || !resolved->contains(key)) {
        keys.push_back(key);
      }
    }
  }
  return keys;
}

// An editor that commits on Enter or when focus leaves: arrays, unset values, JSON text. The
// text typed so far lives in the form's drafts while the field is active.
void text_commit_editor(const ojson& value, FormState& form, const std::string& path) {
  const std::string shown = value.is_null() ? std::string() : value.dump();
  const auto draft = form.drafts().find(path);
  std::string text = draft != form.drafts().end() ? draft->second : shown;
  ImGui::InputTextWithHint("##v", "none (type a value, Enter sets it)", &text);
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    if (text != shown) form.queue(path, text.empty() ? ojson(nullptr) : parse_loose_value(text));
    form.drafts().erase(path);
  } else if (ImGui::IsItemActive()) {
    form.drafts()[path] = text;
  } else {
    form.drafts().erase(path);
  }
}

// Numbers are edited as text: what parses as a JSON number is applied at once (integers stay
// integers, so "2" and "2.5" both mean what they say); anything else is applied when the field
// loses focus, and the parser then flags it.
void number_editor(const ojson& value, FormState& form, const std::string& path) {
  const auto draft = form.drafts().find(path);
  std::string text = draft != form.drafts().end() ? draft->second : value.dump();
  const bool changed = ImGui::InputText("##v", &text, ImGuiInputTextFlags_CharsScientific);
  const ojson parsed = parse_loose_value(text);
  if (changed && parsed.is_number() && parsed != value) form.queue(path, parsed);
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    if (!parsed.is_number()) form.queue(path, parsed);
    form.drafts().erase(path);
  } else if (ImGui::IsItemActive()) {
    form.drafts()[path] = text;
  } else {
    form.drafts().erase(path);
  }
}

void value_editor(const ojson& value, FormState& form, const std::string& path,
                  const std::vector<std::string>& choices) {
  if (!choices.empty() && (value.is_string() || value.is_null())) {
    const std::string current = value.is_string() ? value.get<std::string>() : "";
    if (ImGui::BeginCombo("##v", current.empty() ? "(none)" : current.c_str())) {
      for (const std::string& choice : choices) {
        if (ImGui::Selectable(choice.c_str(), choice == current) && choice != current) {
          form.queue(path, ojson(choice));
        }
      }
      ImGui::EndCombo();
    }
  } else if (value.is_boolean()) {
    bool v = value.get<bool>();
    if (ImGui::Checkbox("##v", &v)) form.queue(path, ojson(v));
  } else if (value.is_number()) {
    number_editor(value, form, path);
  } else if (value.is_string()) {
    std::string v = value.get<std::string>();
    if (ImGui::InputText("##v", &v)) form.queue(path, ojson(v));
  } else {
    text_commit_editor(value, form, path);
  }
}

}  // namespace

void FormState::queue(std::string path, std::optional<ojson> value) {
  edits_.emplace_back(std::move(path), std::move(value));
}

void FormState::begin_frame(const ScenarioDocument& doc) {
  reveal_error_ = doc.error() != last_error_ && !doc.valid();
  last_error_ = doc.error();
}

bool error_within(const ScenarioDocument& doc, const std::string& json_path) {
  if (doc.valid()) return false;
  if (json_path.empty()) return true;
  const std::string& error = doc.error_path();
  if (error == json_path) return true;
  return error.size() > json_path.size() && error.compare(0, json_path.size(), json_path) == 0 &&
         (error[json_path.size()] == '.' || error[json_path.size()] == '[');
}

bool FormState::apply(ScenarioDocument& doc) {
  const bool any = !edits_.empty();
  for (auto& [path, value] : edits_) {
    if (value) {
      doc.set(path, std::move(*value));
    } else {
      doc.reset(path);
    }
  }
  edits_.clear();
  return any;
}

const ojson* shown_value(const ScenarioDocument& doc, const std::string& path, bool* is_default) {
  const ojson* raw = find_at(doc.raw(), path);
  if (is_default != nullptr) *is_default = raw == nullptr;
  return raw != nullptr ? raw : find_at(doc.resolved(), path);
}

bool begin_form_table(const char* id) {
  if (!ImGui::BeginTable(id, 2, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
    return false;
  }
  ImGui::TableSetupColumn("key", ImGuiTableColumnFlags_WidthFixed, kKeyColumnWidth);
  ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
  return true;
}

void field_row(const ScenarioDocument& doc, FormState& form, const std::string& path,
               const std::string& key, const std::vector<std::string>& choices) {
  bool is_default = false;
  const ojson* value = shown_value(doc, path, &is_default);
  const bool has_error = !doc.valid() && doc.error_path() == path;
  if (has_error && form.reveal_error()) ImGui::SetScrollHereY(0.3f);
  ImGui::PushID(path.c_str());
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::AlignTextToFramePadding();
  if (has_error) {
    ImGui::PushStyleColor(ImGuiCol_Text, palette().error_text);
    ImGui::TextUnformatted(key.c_str());
    ImGui::PopStyleColor();
  } else if (is_default) {
    ImGui::TextDisabled("%s", key.c_str());
  } else {
    ImGui::TextUnformatted(key.c_str());
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s%s", path.c_str(), is_default ? " (default)" : "");
  }
  ImGui::TableNextColumn();
  // A key the user set gets a small reset button on the right that puts the default back.
  ImGui::PushItemWidth(
      is_default ? -FLT_MIN : ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight() - 4.0f);
  if (has_error) ImGui::PushStyleColor(ImGuiCol_FrameBg, palette().error_background);
  value_editor(value != nullptr ? *value : ojson(nullptr), form, path, choices);
  if (has_error) ImGui::PopStyleColor();
  ImGui::PopItemWidth();
  if (!is_default) {
    ImGui::SameLine(0.0f, 4.0f);
    if (ImGui::Button("x", ImVec2(ImGui::GetFrameHeight(), 0.0f))) form.queue(path, std::nullopt);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("reset to the default");
  }
  if (has_error) {
    ImGui::PushStyleColor(ImGuiCol_Text, palette().error_text);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(doc.error().c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  ImGui::PopID();
}

void object_rows(const ScenarioDocument& doc, FormState& form, const std::string& path,
                 const ChoicesFor& choices_for) {
  for (const std::string& key : shown_keys(doc, path)) {
    const std::string child = path.empty() ? key : path + "." + key;
    const ojson* value = shown_value(doc, child);
    if (value != nullptr && value->is_object()) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const bool error_inside = error_within(doc, child);
      if (error_inside && form.reveal_error()) ImGui::SetNextItemOpen(true);
      if (error_inside) ImGui::PushStyleColor(ImGuiCol_Text, palette().error_text);
      const bool open =
          ImGui::TreeNodeEx(child.c_str(), ImGuiTreeNodeFlags_SpanFullWidth, "%s", key.c_str());
      if (error_inside) ImGui::PopStyleColor();
      if (open) {
        object_rows(doc, form, child, choices_for);
        ImGui::TreePop();
      }
      continue;
    }
    field_row(doc, form, child, key, choices_for(child));
  }
}

}  // namespace tidal::ui
