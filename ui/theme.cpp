#include "ui/theme.h"

namespace tidal::ui {
namespace {

// Colour-blind-friendly categorical hues, a touch brighter on dark backgrounds.
constexpr Palette kDarkPalette{
    {IM_COL32(88, 166, 255, 255), IM_COL32(255, 166, 77, 255), IM_COL32(94, 201, 137, 255),
     IM_COL32(235, 104, 122, 255), IM_COL32(180, 142, 240, 255), IM_COL32(230, 205, 90, 255),
     IM_COL32(82, 204, 214, 255), IM_COL32(200, 200, 200, 255)},
    IM_COL32(94, 201, 137, 255),
    IM_COL32(235, 104, 122, 255),
    IM_COL32(255, 150, 150, 255),
    IM_COL32(90, 30, 36, 255)};

constexpr Palette kLightPalette{
    {IM_COL32(31, 106, 196, 255), IM_COL32(219, 112, 20, 255), IM_COL32(32, 145, 80, 255),
     IM_COL32(200, 45, 70, 255), IM_COL32(124, 82, 196, 255), IM_COL32(168, 140, 0, 255),
     IM_COL32(20, 140, 150, 255), IM_COL32(90, 90, 90, 255)},
    IM_COL32(32, 145, 80, 255),
    IM_COL32(200, 45, 70, 255),
    IM_COL32(170, 20, 40, 255),
    IM_COL32(253, 226, 228, 255)};

const Palette* g_palette = &kDarkPalette;

void shared_metrics(ImGuiStyle& style) {
  style.WindowRounding = 0.0f;
  style.ChildRounding = 4.0f;
  style.FrameRounding = 4.0f;
  style.GrabRounding = 4.0f;
  style.TabRounding = 4.0f;
  style.PopupRounding = 4.0f;
  style.WindowPadding = ImVec2(10.0f, 8.0f);
  style.FramePadding = ImVec2(7.0f, 4.0f);
  style.ItemSpacing = ImVec2(8.0f, 6.0f);
  style.CellPadding = ImVec2(8.0f, 3.0f);
  style.ScrollbarSize = 12.0f;
  style.WindowBorderSize = 0.0f;
  style.ChildBorderSize = 1.0f;
}

}  // namespace

void apply_theme(bool light) {
  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();
  shared_metrics(style);
  if (light) {
    ImGui::StyleColorsLight(&style);
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.96f, 0.96f, 0.97f, 1.0f);
    style.Colors[ImGuiCol_ChildBg] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
    style.Colors[ImGuiCol_FrameBg] = ImVec4(0.99f, 0.99f, 1.0f, 1.0f);
    style.Colors[ImGuiCol_Border] = ImVec4(0.78f, 0.80f, 0.84f, 1.0f);
    style.Colors[ImGuiCol_TableRowBgAlt] = ImVec4(0.0f, 0.0f, 0.2f, 0.04f);
    g_palette = &kLightPalette;
  } else {
    ImGui::StyleColorsDark(&style);
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.09f, 0.10f, 0.12f, 1.0f);
    style.Colors[ImGuiCol_ChildBg] = ImVec4(0.12f, 0.13f, 0.16f, 1.0f);
    style.Colors[ImGuiCol_FrameBg] = ImVec4(0.16f, 0.17f, 0.21f, 1.0f);
    style.Colors[ImGuiCol_Border] = ImVec4(0.26f, 0.28f, 0.34f, 1.0f);
    style.Colors[ImGuiCol_MenuBarBg] = ImVec4(0.13f, 0.14f, 0.17f, 1.0f);
    style.Colors[ImGuiCol_TableRowBgAlt] = ImVec4(1.0f, 1.0f, 1.0f, 0.03f);
    g_palette = &kDarkPalette;
  }
}

const Palette& palette() {
  return *g_palette;
}

}  // namespace tidal::ui
