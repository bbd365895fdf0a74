#include "sim/fleet/lifecycle.h"

#include "perf/json_reader.h"

namespace tidal::fleet {

LifecycleState parse_lifecycle_state(std::string_view text, const std::string& where,
                                     const std::string& path) {
  std::string expected;
  for (int i = 0; i < kNumLifecycleStates; ++i) {
    if (kLifecycleStateNames[i] == text) return static_cast<LifecycleState>(i);
    expected += (i == 0 ? "" : ", ") + std::string(kLifecycleStateNames[i]);
  }
  perf::throw_json_error(
      where, path,
      "unknown lifecycle state \"" + std::string(text) + "\"; expected one of " + expected);
}

}  // namespace tidal::fleet
