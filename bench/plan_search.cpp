// Benchmark: a capacity plan over 256 candidates for the Azure LLM inference conversation
// trace (TIDAL_SHARED_DIR/traces/azure2023/AzureLLMInferenceTrace_conv.csv), on one worker
// thread and on every hardware thread. Prints one JSON line per run: wall seconds,
// candidates/s, simulations/s, and candidates per minute per thread against issue 22's target
// (1,000 per minute per core).
//
//   plan_search [DURATION_S]
//
// DURATION_S (default 600) keeps the first seconds of the trace: a full hour per candidate
// (19,366 requests) makes the one-core run take minutes; `plan_search 3600` runs it anyway.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "base/output_files.h"
#include "bench/option_pairs.h"
#include "plan/plan_runner.h"

namespace {

namespace fs = std::filesystem;

constexpr double kTargetPerMinPerThread = 1000.0;  // issue 22

void write_json(const fs::path& path, const nlohmann::json& value) {
  tidal::base::write_output_text(path.string(), value.dump(2) + "\n");
}

}  // namespace

int main(int argc, char** argv) {
  const double duration_s =
      tidal::bench::positional_number(argc, argv, 1, 600.0, "usage: plan_search [duration_s=600]");
  const std::string trace =
      std::string(TIDAL_SHARED_DIR) + "/traces/azure2023/AzureLLMInferenceTrace_conv.csv";
  const fs::path dir = fs::temp_directory_path() / "tidal_bench_plan_search";
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_json(dir / "scenario.json",
             nlohmann::json{{"name", "azure-conv"},
                            {"duration_s", duration_s},
                            {"timeline_interval_s", 10},
                            {"workloads",
                             {{{"name", "conv"},
                               {"trace", {{"path", trace}}},
                               {"slo_class", "interactive"},
                               {"slo", {{"ttft_s", 2.0}}}}}},
                            {"fleet",
                             {{"pools",
                               {{{"name", "pool"},
                                 {"model", "llama-3-8b"},
                                 {"gpu", "H100-SXM"},
                                 {"num_replicas", 2},
                                 {"scheduler", {{"policy", "continuous"}}}}}}}},
                            {"output", {{"trace_json", false}}}});
  write_json(dir / "space.json", nlohmann::json::parse(R"({"dimensions": {
      "gpu": ["H100-SXM", "A100-80GB", "L40S", "H200"],
      "tp": [1, 2],
      "num_replicas": [1, 2, 4, 8],
      "scheduler.policy": ["continuous", "chunked_prefill"],
      "scheduler.max_num_seqs": [64, 256],
      "pricing.market": ["on_demand", "spot"]}})"));

  const int all_cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  for (int num_threads : {1, all_cores}) {
    tidal::plan::PlanOptions options;
    options.scenario_path = (dir / "scenario.json").string();
    options.space_path = (dir / "space.json").string();
    options.slo = {"p99_ttft<=2s"};
    options.out_dir = (dir / fmt::format("out-{}", num_threads)).string();
    options.num_threads = num_threads;
    options.progress = false;
    const auto start = std::chrono::steady_clock::now();
    tidal::plan::PlanRun run;
    try {
      run = tidal::plan::run_plan(options);
    } catch (const tidal::InputError& e) {
      std::fprintf(stderr, "plan_search: %s\n", e.what());
      return 1;
    }
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    int64_t num_simulations = 0, num_feasible = 0;
    for (const auto& r : run.outcome.results) {
      num_simulations += r.num_simulations;
      num_feasible += r.status == "feasible";
    }
    const auto n = static_cast<double>(run.outcome.results.size());
    const double per_min_per_thread = n / wall_s * 60.0 / num_threads;
    std::printf(
        "%s\n",
        nlohmann::ordered_json{{"bench", "plan_search"},
                               {"trace", "azure2023 conv"},
                               {"trace_duration_s", duration_s},
                               {"threads", num_threads},
                               {"candidates", run.outcome.results.size()},
                               {"feasible", num_feasible},
                               {"simulations", num_simulations},
                               {"wall_s", wall_s},
                               {"candidates_per_s", n / wall_s},
                               {"simulations_per_s", static_cast<double>(num_simulations) / wall_s},
                               {"candidates_per_min_per_thread", per_min_per_thread},
                               {"target_per_min_per_thread", kTargetPerMinPerThread},
                               {"meets_target", per_min_per_thread >= kTargetPerMinPerThread}}
            .dump()
            .c_str());
    std::fflush(stdout);
  }
  fs::remove_all(dir);
  return 0;
}
