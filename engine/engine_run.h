// What `tidal engine run` does, as a library call: load (or randomly create) the model, read the
// trace, build the engine, replay the trace in real time and write the run folder.
#pragma once

#include <cstdint>
#include <string>

#include "engine/engine.h"
#include "engine/memory_report.h"
#include "engine/trace_replay.h"

namespace tidal::engine {

struct EngineRunArgs {
  std::string model;         // checkpoint folder, config.json or preset name
  uint64_t model_seed = 0;   // random weights when `model` is not a checkpoint
  std::string trace;         // trace file (any format traces/ reads)
  std::string trace_format;  // empty: detected from the first line
  std::string out_dir;       // run folder
  EngineConfig config;
  ReplayOptions replay;
  int64_t trace_max_slices = 100'000;
};

struct EngineRunSummary {
  int64_t num_requests = 0;
  int64_t num_finished = 0;
  int64_t num_rejected = 0;
  int64_t num_steps = 0;
  int stop_signal = 0;  // nonzero: stopped early by that signal; the run folder is partial
  int64_t num_output_tokens = 0;
  double wall_s = 0.0;
  std::string model_source;
  std::string backend;  // "cpu" or "cuda"
  std::string device;   // cuda: GPU 0's name
  SpecStats spec;
  MemoryReport memory;
};

// InputError for a bad model, trace or option (the message names it). With
// args.replay.stop_signal set, a stop request ends the replay early and the run folder written
// is marked partial (summary.stop_signal says so).
EngineRunSummary run_engine(const EngineRunArgs& args);

}  // namespace tidal::engine
