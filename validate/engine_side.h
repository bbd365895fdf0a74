// The measured side of a validation: the engine replays the prepared requests in real time (what
// `tidal engine run` does, step by step through engine/'s public pieces, so the in-memory run —
// step records in nanoseconds, every ITL gap — stays available) and writes its run folder.
#pragma once

#include <string>
#include <vector>

#include "engine/engine_run.h"
#include "engine/run_metrics.h"
#include "engine/trace_replay.h"
#include "traces/request.h"

namespace tidal::validate {

struct EngineSide {
  engine::EngineRun run;
  engine::RunMetrics metrics;
  sched::SchedulerConfig scheduler;  // as the engine's scheduler runs it
  kv::BlockManagerConfig kv;         // block size, KV blocks (from the memory report), swap pool
  engine::MemoryReport memory;
  engine::SpecStats spec;
  std::string model_source;
  // CPU seconds this process used during the replay over its wall seconds: how much of the
  // machine the engine got (1 = one core throughout; well below 1 on a shared, busy machine).
  double cpu_share = 0.0;
};

// `requests` were prepared with engine::prepare_requests(…, args.replay). Writes the run folder
// to `out_dir` (args.out_dir is not used). InputError for a bad model or option.
EngineSide run_engine_side(const engine::EngineRunArgs& args, std::vector<Request> requests,
                           const std::string& out_dir);

}  // namespace tidal::validate
