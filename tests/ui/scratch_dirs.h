// What the ui tests share: the small scenario they run.
#pragma once

#include <string>

namespace tidal::ui::test_support {

inline const std::string kSmallScenario =
    std::string(TIDAL_SOURCE_DIR) + "/tests/ui/small_scenario.json";

}  // namespace tidal::ui::test_support
