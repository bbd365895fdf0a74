#include "ui/dash_frame.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <fmt/format.h>

#include "base/input_error.h"
#include "ui/theme.h"

namespace tidal::ui {
namespace {

constexpr const char* kTabTitles[] = {"Workload", "Queue & batch", "Fleet",   "Latency", "CDFs",
                                      "KV cache", "Cost",          "Tenants", "Compare"};

// Runs an action, turning an InputError into an error banner.
template <typename Action>
void guarded(DashModel& model, Action&& action) {
  try {
    action();
  } catch (const InputError& e) {
    model.banner() = {true, e.what()};
  }
}

void shortcuts(DashModel& model) {
  const ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsKeyPressed(GLFW_KEY_F5, false)) guarded(model, [&] { model.start_run(); });
  if (!io.WantTextInput && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) {
    model.cancel_run();
  }
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_P, false)) {
    guarded(model, [&] { model.pin_current(); });
  }
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_S, false) && !model.scenario().path().empty()) {
    guarded(model, [&] { model.scenario().save(model.scenario().path()); });
  }
}

void menu_bar(DashModel& model) {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Default scenario")) {
      model.scenario() = ScenarioDocument::from_default();
    }
    if (ImGui::BeginMenu("Recent", !model.settings().recent_files.empty())) {
      for (const std::string& path : std::vector<std::string>(model.settings().recent_files)) {
        if (ImGui::MenuItem(path.c_str())) guarded(model, [&] { model.load(path); });
      }
      ImGui::EndMenu();
    }
    if (ImGui::MenuItem("Save scenario", "Ctrl+S", false, !model.scenario().path().empty())) {
      guarded(model, [&] { model.scenario().save(model.scenario().path()); });
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Run")) {
    if (ImGui::MenuItem("Run", "F5", false, !model.running())) {
      guarded(model, [&] { model.start_run(); });
    }
    if (ImGui::MenuItem("Cancel", "Esc", false, model.running())) model.cancel_run();
    if (ImGui::MenuItem("Pin current run", "Ctrl+P", false, model.current() != nullptr)) {
      guarded(model, [&] { model.pin_current(); });
    }
    if (ImGui::MenuItem("Unpin", nullptr, false, model.pinned() != nullptr)) model.unpin();
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    bool& light = model.settings().light_theme;
    if (ImGui::MenuItem("Dark theme", nullptr, !light)) light = false;
    if (ImGui::MenuItem("Light theme", nullptr, light)) light = true;
    ImGui::EndMenu();
  }
  ImGui::TextDisabled("   F5 run   Esc cancel   Ctrl+P pin   drop files to open them");
  ImGui::EndMenuBar();
}

void toolbar(DashModel& model, FrameState& state) {
  const float button_w = 78.0f;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.42f);
  const bool entered =
      ImGui::InputTextWithHint("##path", "scenario.json, trace file or run folder",
                               &state.load_path, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button("Open", ImVec2(button_w, 0.0f)) || entered) && !state.load_path.empty()) {
    load_paths(model, {state.load_path});
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(button_w);
  if (ImGui::BeginCombo("##recent", "Recent", ImGuiComboFlags_HeightLarge)) {
    for (const std::string& path : std::vector<std::string>(model.settings().recent_files)) {
      if (ImGui::Selectable(path.c_str())) load_paths(model, {path});
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine(0.0f, 24.0f);
  ImGui::BeginDisabled(model.running() || !model.scenario().valid());
  if (ImGui::Button("Run  F5", ImVec2(button_w, 0.0f))) guarded(model, [&] { model.start_run(); });
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!model.running());
  if (ImGui::Button("Cancel", ImVec2(button_w, 0.0f))) model.cancel_run();
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(model.current() == nullptr);
  if (ImGui::Button("Pin", ImVec2(button_w, 0.0f))) guarded(model, [&] { model.pin_current(); });
  ImGui::EndDisabled();
  if (!model.runs().empty() || model.live() != nullptr) {
    ImGui::SameLine(0.0f, 24.0f);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
    const LoadedRun* shown = model.shown();
    if (ImGui::BeginCombo("##runs", shown != nullptr ? shown->label.c_str() : "")) {
      if (model.live() != nullptr &&
          ImGui::Selectable(model.live()->label.c_str(), model.showing_live())) {
        model.show_live();
      }
      for (size_t i = 0; i < model.runs().size(); ++i) {
        std::string label = model.runs()[i]->label;
        if (model.pinned_index() == i) label += "  [pinned]";
        const bool selected = !model.showing_live() && model.current_index() == i;
        if (ImGui::Selectable(label.c_str(), selected)) model.select_run(i);
      }
      ImGui::EndCombo();
    }
  }
}

void banner(DashModel& model) {
  const Banner& b = model.banner();
  if (b.text.empty()) return;
  if (b.is_error) {
    ImGui::PushStyleColor(ImGuiCol_Text, palette().error_text);
    ImGui::TextWrapped("%s", b.text.c_str());
    ImGui::PopStyleColor();
  } else {
    ImGui::TextDisabled("%s", b.text.c_str());
  }
}

void views_panel(DashModel& model, FrameState& state) {
  if (model.running()) {
    draw_progress_strip(model);
    ImGui::Separator();
  }
  const LoadedRun* run = model.shown();
  if (run == nullptr) {
    if (model.running()) {
      ImGui::TextDisabled("The plots appear with the run's first closed timeline interval.");
    } else {
      ImGui::TextWrapped(
          "No run yet. Press F5 to simulate the scenario on the left, or open a run folder "
          "(path field above, drag and drop, or `tidal dash RUN_DIR`).");
    }
    return;
  }
  draw_headline(*run);
  if (!ImGui::BeginTabBar("views")) return;
  const bool requested = state.view_request_frames > 0;
  for (size_t i = 0; i < kViewNames.size(); ++i) {
    const auto view = static_cast<View>(i);
    const ImGuiTabItemFlags flags =
        requested && view == model.view() ? ImGuiTabItemFlags_SetSelected : 0;
    const std::string title = fmt::format("{}###{}", kTabTitles[i], kViewNames[i]);
    if (!ImGui::BeginTabItem(title.c_str(), nullptr, flags)) continue;
    if (!requested) model.set_view(view);
    ImGui::BeginChild("view", ImVec2(0.0f, 0.0f), false, ImGuiWindowFlags_NoScrollWithMouse);
    if (view == View::tenants) {
      draw_tenants_view(*run);
    } else if (view == View::compare) {
      draw_compare_view(model, state.views);
    } else {
      draw_plot_view(model, view);
    }
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
  if (state.view_request_frames > 0) --state.view_request_frames;
}

}  // namespace

void load_paths(DashModel& model, const std::vector<std::string>& paths) {
  for (const std::string& path : paths) guarded(model, [&] { model.load(path); });
}

void draw_dash_frame(DashModel& model, FrameState& state) {
  if (model.take_view_request()) state.view_request_frames = 2;
  shortcuts(model);
  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->WorkPos);
  ImGui::SetNextWindowSize(viewport->WorkSize);
  ImGui::Begin("tidal dash", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_MenuBar |
                   ImGuiWindowFlags_NoSavedSettings);
  menu_bar(model);
  toolbar(model, state);
  banner(model);
  const float editor_w = std::clamp(ImGui::GetContentRegionAvail().x * 0.34f, 380.0f, 600.0f);
  ImGui::BeginChild("editor", ImVec2(editor_w, 0.0f), true);
  draw_scenario_form(model, state.form);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("runs", ImVec2(0.0f, 0.0f), true);
  views_panel(model, state);
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace tidal::ui
