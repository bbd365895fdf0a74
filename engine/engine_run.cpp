#include "engine/engine_run.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "base/input_error.h"
#include "base/run_folder.h"
#include "engine/cuda_ranks.h"
#include "engine/model_loading.h"
#include "engine/run_writer.h"
#include "traces/dag.h"
#include "traces/format.h"
#include "traces/reader.h"

namespace tidal::engine {

EngineRunSummary run_engine(const EngineRunArgs& args) {
  if (args.out_dir.empty()) throw InputError("--out: must name a folder (got an empty path)");
  base::check_run_folder_target(args.out_dir);  // before the run, not after it
  traces::ReadOptions read_options;
  if (!args.trace_format.empty())
    read_options.format = traces::parse_format_name(args.trace_format);
  std::vector<Request> trace = traces::read_trace(args.trace, read_options);
  if (trace.empty()) throw InputError(args.trace + ": no requests (a header and no rows)");
  // Deps in a cycle would wait on each other forever: refused up front, naming the file.
  if (std::any_of(trace.begin(), trace.end(), [](const Request& r) { return !r.deps.empty(); })) {
    try {
      traces::analyze_dag(trace);
    } catch (const InputError& e) {
      throw InputError(args.trace + ": " + e.what());
    }
  }
  std::vector<Request> requests = prepare_requests(std::move(trace), args.replay);

  LoadedModel target = load_model(args.model, args.model_seed, "--model");
  std::optional<LoadedModel> draft = load_draft_model(args.config.spec, args.model_seed);
  const std::string model_source = target.source;
  Engine engine(
      std::move(target.weights), args.config,
      draft ? std::optional<models::ModelWeights>(std::move(draft->weights)) : std::nullopt);
  SteadyClock clock;
  const EngineRun run = replay(engine, std::move(requests), args.replay, clock);

  nlohmann::ordered_json inputs{{"model", args.model},
                                {"model_source", model_source},
                                {"trace", args.trace},
                                {"time_scale", args.replay.time_scale},
                                {"length_scale", args.replay.length_scale},
                                {"max_requests", args.replay.max_requests},
                                {"prompt_seed", args.replay.prompt_seed}};
  if (draft) inputs["draft_model_source"] = draft->source;
  if (args.config.backend == BackendKind::cuda) {  // cpu runs keep their inputs as before
    inputs["backend"] = "tidal-cuda";
    inputs["device"] = cuda_device_name(0);
    inputs["gpu_memory_utilization"] = args.config.gpu_memory_utilization;
    inputs["num_gpu_blocks"] = engine.config().num_gpu_blocks;
  }
  RunFolderOptions folder;
  folder.workload = std::filesystem::path(args.trace).stem().string();
  folder.trace_max_slices = args.trace_max_slices;
  write_run_folder(args.out_dir, inputs, engine, run, args.replay, folder);

  EngineRunSummary summary;
  summary.num_requests = static_cast<int64_t>(run.requests.size());
  for (const RequestRecord& r : run.records) {
    summary.num_finished += r.status == RequestStatus::finished;
    summary.num_rejected += r.status == RequestStatus::rejected;
    summary.num_output_tokens += r.num_output_tokens_done;
  }
  summary.num_steps = static_cast<int64_t>(run.steps.size());
  summary.stop_signal = run.stop_signal;
  summary.wall_s = run.wall_s;
  summary.model_source = model_source;
  summary.spec = engine.spec_stats();
  summary.memory = engine.memory();
  summary.backend = backend_kind_name(args.config.backend);
  if (args.config.backend == BackendKind::cuda) summary.device = cuda_device_name(0);
  return summary;
}

}  // namespace tidal::engine
