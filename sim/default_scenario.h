// The built-in default scenario: examples/default.json, compiled into the library.
#pragma once

#include <string_view>

#include "sim/scenario.h"

namespace tidal::sim {

// The text of examples/default.json as it was at build time.
std::string_view default_scenario_json();

// Parses it; messages name "<built-in default scenario>", relative paths resolve against the
// current folder.
Scenario load_default_scenario();

}  // namespace tidal::sim
