// The run output folder (DESIGN.md; every file and column in docs/run-output.md):
// summary.json, requests.csv, timeline.csv and trace.json. Numbers are printed with fixed
// formats, so equal runs give byte-identical files.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/metrics.h"
#include "sim/requests_csv.h"
#include "sim/scenario.h"
#include "sim/simulator.h"

namespace tidal::sim {

// The finished run's requests for RequestsCsvWriter (sim/requests_csv.h).
RequestsView requests_view(const RunResult& result);
void write_requests_csv(const Scenario& scenario, const RunResult& result, std::ostream& out);
void write_timeline_csv(const RunResult& result, std::ostream& out);
// Chrome / Perfetto trace-event JSON: a process per pool, a thread per replica, a slice per step.
void write_chrome_trace(const Scenario& scenario, const RunResult& result, std::ostream& out);
nlohmann::ordered_json summary_json(const Scenario& scenario, const RunResult& result,
                                    const RunMetrics& metrics);

// Writes the run folder `dir` as a whole (base::RunFolderWriter): summary.json plus the files
// the scenario's output knobs enable, replacing an earlier run there. The same as a
// RunOutputStream (sim/run_output_stream.h) given no reports, finished with `result`. InputError
// when the folder cannot be written or `dir` holds files and is not a tidal run folder; `dir` is
// then unchanged.
void write_run_output(const std::string& dir, const Scenario& scenario, const RunResult& result,
                      const RunMetrics& metrics);

}  // namespace tidal::sim
