#include "validate/engine_side.h"

#include <sys/resource.h>

#include <filesystem>
#include <optional>
#include <utility>

#include "engine/clock.h"
#include "engine/engine.h"
#include "engine/model_loading.h"
#include "engine/run_writer.h"

namespace tidal::validate {
namespace {

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

EngineSide run_engine_side(const engine::EngineRunArgs& args, std::vector<Request> requests,
                           const std::string& out_dir) {
  engine::LoadedModel target = engine::load_model(args.model, args.model_seed, "--model");
  std::optional<engine::LoadedModel> draft =
      engine::load_draft_model(args.config.spec, args.model_seed);
  EngineSide side;
  side.model_source = target.source;
  engine::Engine engine(
      std::move(target.weights), args.config,
      draft ? std::optional<models::ModelWeights>(std::move(draft->weights)) : std::nullopt);
  engine::SteadyClock clock;
  const double cpu_start = process_cpu_seconds();
  side.run = engine::replay(engine, std::move(requests), args.replay, clock);
  if (side.run.wall_s > 0.0) side.cpu_share = (process_cpu_seconds() - cpu_start) / side.run.wall_s;

  nlohmann::ordered_json inputs{{"model", args.model},
                                {"model_source", side.model_source},
                                {"trace", args.trace},
                                {"time_scale", args.replay.time_scale},
                                {"length_scale", args.replay.length_scale},
                                {"max_requests", args.replay.max_requests},
                                {"prompt_seed", args.replay.prompt_seed}};
  if (draft) inputs["draft_model_source"] = draft->source;
  engine::RunFolderOptions folder;
  folder.workload = std::filesystem::path(args.trace).stem().string();
  folder.trace_max_slices = args.trace_max_slices;
  engine::write_run_folder(out_dir, inputs, engine, side.run, args.replay, folder);

  side.metrics = engine::compute_metrics(side.run.records, side.run.requests, side.run.itl_s,
                                         side.run.busy_ns, side.run.end_ns);
  side.scheduler = engine.scheduler().config();
  side.kv = engine.block_manager().config();
  side.memory = engine.memory();
  side.spec = engine.spec_stats();
  return side;
}

}  // namespace tidal::validate
