#include "ui/scenario_form.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <fmt/format.h>

#include "base/input_error.h"
#include "engine/sched/config.h"
#include "perf/dtype.h"
#include "perf/gpu_catalog.h"
#include "perf/model_catalog.h"
#include "sim/router.h"
#include "traces/format.h"
#include "traces/generators.h"
#include "ui/json_path.h"
#include "ui/theme.h"

namespace tidal::ui {
namespace {

using ojson = nlohmann::ordered_json;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

template <typename Names>
std::vector<std::string> to_strings(const Names& names) {
  return std::vector<std::string>(names.begin(), names.end());
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> names;
  for (const perf::DType d :
       {perf::DType::fp32, perf::DType::bf16, perf::DType::fp16, perf::DType::fp8,
        perf::DType::int8, perf::DType::int4, perf::DType::fp4}) {
    names.emplace_back(perf::dtype_name(d));
  }
  return names;
}

void error_banner(const ScenarioDocument& doc) {
  if (doc.valid()) return;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, palette().error_background);
  ImGui::PushStyleColor(ImGuiCol_Text, palette().error_text);
  const float wrap_w = ImGui::GetContentRegionAvail().x - 16.0f;
  const float text_h = ImGui::CalcTextSize(doc.error().c_str(), nullptr, false, wrap_w).y;
  ImGui::BeginChild("error", ImVec2(0.0f, text_h + 12.0f), true, ImGuiWindowFlags_NoScrollbar);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(doc.error().c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
  ImGui::PopStyleColor(2);
}

void save_row(DashModel& model, ScenarioFormState& state) {
  ScenarioDocument& doc = model.scenario();
  if (state.save_label != doc.label()) {
    state.save_label = doc.label();
    state.save_path.clear();
  }
  if (state.save_path.empty()) {
    state.save_path =
        doc.path().empty() ? doc.resolved().value("name", "scenario") + ".json" : doc.path();
  }
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - 90.0f);
  ImGui::InputTextWithHint("##save_path", "save as ...", &state.save_path);
  ImGui::SameLine();
  if (ImGui::Button("Save", ImVec2(-FLT_MIN, 0.0f))) {
    try {
      doc.save(state.save_path);
      model.banner() = {false, fmt::format("saved {}", state.save_path)};
    } catch (const InputError& e) {
      model.banner() = {true, e.what()};
    }
  }
}

// A list section (workloads, pools): one tree node per element with its fields, and buttons
// to duplicate or remove it.
void list_section(const ScenarioDocument& doc, FormState& form, const std::string& list_path,
                  const char* noun) {
  const ojson* list = shown_value(doc, list_path);
  if (list == nullptr || !list->is_array()) return;
  const ojson* raw_list = find_at(doc.raw(), list_path);
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string path = fmt::format("{}[{}]", list_path, i);
    const ojson& element = (*list)[i];
    const std::string name = element.is_object() ? element.value("name", "") : "";
    const bool error_inside = error_within(doc, path);
    if (error_inside && form.reveal_error()) ImGui::SetNextItemOpen(true);
    if (error_inside) ImGui::PushStyleColor(ImGuiCol_Text, palette().error_text);
    const bool open = ImGui::TreeNodeEx(
        path.c_str(), ImGuiTreeNodeFlags_DefaultOpen | ImGuiTreeNodeFlags_SpanAvailWidth, "%s  %s",
        path.c_str(), name.c_str());
    if (error_inside) ImGui::PopStyleColor();
    if (!open) continue;
    ImGui::PushID(path.c_str());
    if (ImGui::SmallButton("duplicate") && raw_list != nullptr && i < raw_list->size()) {
      ojson copy = (*raw_list)[i];
      if (copy.is_object() && copy.contains("name")) {
        copy["name"] = copy["name"].get<std::string>() + "-copy";
      }
      form.queue(fmt::format("{}[{}]", list_path, raw_list->size()), std::move(copy));
    }
    if (list->size() > 1) {
      ImGui::SameLine();
      if (ImGui::SmallButton("remove")) form.queue(path, std::nullopt);
    }
    ImGui::SameLine();
    ImGui::TextDisabled("%s", noun);
    if (begin_form_table("fields")) {
      object_rows(doc, form, path, scenario_choices);
      ImGui::EndTable();
    }
    ImGui::PopID();
    ImGui::TreePop();
  }
}

void keys_section(const ScenarioDocument& doc, FormState& form,
                  std::initializer_list<const char*> keys) {
  if (!begin_form_table("fields")) return;
  for (const char* key : keys) field_row(doc, form, key, key, scenario_choices(key));
  ImGui::EndTable();
}

void object_section(const ScenarioDocument& doc, FormState& form, const char* path) {
  if (!begin_form_table(path)) return;
  object_rows(doc, form, path, scenario_choices);
  ImGui::EndTable();
}

bool section_header(const ScenarioDocument& doc, const FormState& form, const char* title,
                    const char* path) {
  if (form.reveal_error() && error_within(doc, path)) ImGui::SetNextItemOpen(true);
  return ImGui::CollapsingHeader(title, ImGuiTreeNodeFlags_DefaultOpen);
}

}  // namespace

std::vector<std::string> scenario_choices(const std::string& path) {
  if (ends_with(path, ".gpu")) return perf::gpu_names();
  if (ends_with(path, ".model")) return perf::model_names();
  if (ends_with(path, "_dtype")) return dtype_names();
  if (ends_with(path, ".scheduler.policy")) return to_strings(sched::batch_policy_names());
  if (ends_with(path, ".scheduler.admission")) return to_strings(sched::admission_policy_names());
  if (ends_with(path, ".scheduler.preemption")) return to_strings(sched::preemption_mode_names());
  if (path == "router.policy") return to_strings(sim::router_names());
  if (ends_with(path, ".perf.kind")) return {"roofline", "profile"};
  if (ends_with(path, ".generator.kind")) return to_strings(traces::generator_kinds());
  if (ends_with(path, ".trace.format")) {
    std::vector<std::string> names;
    for (const traces::TraceFormat f : traces::all_formats()) {
      names.emplace_back(traces::format_name(f));
    }
    return names;
  }
  return {};
}

void draw_scenario_form(DashModel& model, ScenarioFormState& state) {
  const ScenarioDocument& doc = model.scenario();
  state.fields.begin_frame(doc);
  ImGui::TextUnformatted(doc.label().c_str());
  ImGui::SameLine();
  if (doc.valid()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().good), "%s",
                       doc.modified() ? "valid, edited" : "valid");
  } else {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().bad), "invalid");
  }
  error_banner(doc);
  save_row(model, state);
  ImGui::Separator();

  ImGui::BeginChild("form", ImVec2(0.0f, 0.0f), false);
  if (section_header(doc, state.fields, "Run", "")) {
    keys_section(doc, state.fields, {"name", "seed", "duration_s", "timeline_interval_s"});
  }
  if (section_header(doc, state.fields, "Workloads", "workloads")) {
    list_section(doc, state.fields, "workloads", "trace or generator, tenant, SLOs, scaling");
  }
  if (section_header(doc, state.fields, "Fleet pools", "fleet")) {
    list_section(doc, state.fields, "fleet.pools", "GPU, model, TP, dtypes, batching, pricing");
  }
  if (section_header(doc, state.fields, "Router", "router"))
    object_section(doc, state.fields, "router");
  if (section_header(doc, state.fields, "Output", "output"))
    object_section(doc, state.fields, "output");
  ImGui::EndChild();
  state.fields.apply(model.scenario());
}

}  // namespace tidal::ui
