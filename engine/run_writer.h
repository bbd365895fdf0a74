// The engine's run folder: the files `tidal simulate` writes, with the same columns and number
// formats (docs/run-output.md), so reports and the validation loop read engine and simulator
// runs alike, plus the engine's own steps.csv (steps_csv.h):
//   requests.csv  one row per request (one replica 0 in pool "engine"; no SLO classes, so
//                 slo_met is 1 exactly for finished requests)
//   timeline.csv  per interval; replicas_warm is 1, dollars are 0 (no price on a CPU run)
//   trace.json    Chrome / Perfetto trace events, one slice per step
//   summary.json  inputs echoed, memory footprint, metrics (the simulator's keys), speculative
//                 decoding figures, run figures
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/csv_text.h"
#include "engine/engine.h"
#include "engine/run_metrics.h"
#include "engine/trace_replay.h"

namespace tidal::engine {

// Seconds from nanoseconds with exactly six decimals (the simulator's format; steps.csv too).
using base::format_seconds;

// `workload` names the replayed trace in requests.csv's workload column.
void write_requests_csv(const EngineRun& run, const std::string& workload, std::ostream& out);
// `rows` from compute_timeline; `run` gives the steps and states the per-interval maxima and
// means of queue depth, running requests and KV use follow.
void write_timeline_csv(const EngineRun& run, const std::vector<TimelineRow>& rows,
                        std::ostream& out);
// At most `max_slices` step slices (the first ones); the rest are counted as dropped.
void write_chrome_trace(const EngineRun& run, int64_t max_slices, std::ostream& out);

// The engine's config as JSON (echoed in summary.json).
nlohmann::ordered_json engine_config_json(const EngineConfig& config);

// `inputs`: what the run was asked to do (model, trace, options), echoed verbatim.
nlohmann::ordered_json summary_json(const nlohmann::ordered_json& inputs, const Engine& engine,
                                    const EngineRun& run, const RunMetrics& metrics);

struct RunFolderOptions {
  std::string workload = "trace";
  int64_t trace_max_slices = 100'000;
};

// Writes the run folder `dir` as a whole (base::RunFolderWriter): summary.json, requests.csv,
// timeline.csv, trace.json and steps.csv; a run stopped early (EngineRun::stop_signal) is marked
// `partial` in summary.json. InputError when the folder cannot be written or `dir` holds files
// and is not a tidal run folder; `dir` is then unchanged.
void write_run_folder(const std::string& dir, const nlohmann::ordered_json& inputs,
                      const Engine& engine, const EngineRun& run, const ReplayOptions& replay,
                      const RunFolderOptions& options);

}  // namespace tidal::engine
