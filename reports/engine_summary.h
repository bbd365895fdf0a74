// The parts of an engine run's summary.json (engine/run_writer.h) that only engine runs have:
// `inputs`, `engine`, `memory`, `run` and `speculative`. Strict like every reader here.
#pragma once

#include "reports/json_fields.h"
#include "reports/run_data.h"

namespace tidal::reports {

// `doc` is the whole summary.json.
EngineFigures read_engine_figures(const JsonView& doc);

}  // namespace tidal::reports
