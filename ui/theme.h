// Dark and light looks: ImGui's style plus the colours plots draw series with.
#pragma once

#include <imgui.h>

namespace tidal::ui {

struct Palette {
  ImU32 series[8];  // categorical colours, in order of use
  ImU32 good;       // better than the pinned run
  ImU32 bad;        // worse
  ImU32 error_text;
  ImU32 error_background;
};

void apply_theme(bool light);
const Palette& palette();

}  // namespace tidal::ui
