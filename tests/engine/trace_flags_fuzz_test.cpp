// Seeded mutations of an engine trace together with hostile flag values (issue 19): parsing,
// scaling and validation never crash and end in bounded requests or an InputError (10^5
// inputs); the cheap accepted ones run, and their summary.json holds no negative time and no
// non-finite figure.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "base/limits.h"
#include "engine/engine_config.h"
#include "engine/engine_run.h"
#include "engine/trace_replay.h"
#include "models/presets.h"
#include "tests/scratch_folder.h"
#include "tests/traces/fuzz_mutations.h"
#include "traces/reader.h"

namespace tidal::engine {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kNumInputs = 100'000;
constexpr int64_t kNumRuns = 40;  // accepted inputs small enough to run on the tiny model

const std::string kSeedTrace =
    "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":12,\"output_tokens\":3}\n"
    "{\"id\":1,\"arrival_s\":0.001,\"prompt_tokens\":20,\"output_tokens\":2,\"deps\":[0]}\n"
    "{\"id\":2,\"arrival_s\":0.002,\"prompt_tokens\":7,\"output_tokens\":4,\"prefix_block_tokens\":"
    "4,\"prefix_blocks\":[1,2]}\n";

template <typename T>
T pick_of(std::mt19937_64& rng, const std::vector<T>& values) {
  return values[static_cast<size_t>(rng() % values.size())];
}

// Flag values as the command line could give them: each flag left at its default or, one time
// in four, set to a value from a list favouring hostile ones.
void fuzz_flags(std::mt19937_64& rng, EngineConfig& config, ReplayOptions& replay) {
  const std::vector<double> scales{0.0, 1.0, 0.5, -1.0, 1e-300, 1e9, 1e300, NAN, INFINITY};
  const std::vector<int64_t> counts{0, 1, 2, 16, -1, 100'000, INT32_MAX, INT64_MAX};
  const auto sometimes = [&rng] { return rng() % 4 == 0; };
  const auto count32 = [&] {
    return static_cast<int32_t>(pick_of(rng, counts) % (int64_t{1} << 31));
  };
  if (sometimes()) replay.time_scale = pick_of(rng, scales);
  if (sometimes()) replay.length_scale = pick_of(rng, scales);
  if (sometimes()) replay.max_requests = pick_of(rng, counts);
  if (sometimes()) config.block_size = count32();
  if (sometimes()) config.num_threads = count32();
  if (sometimes())
    config.tp = static_cast<int32_t>(pick_of(rng, std::vector<int64_t>{1, 2, 3, 0, -1}));
  if (sometimes()) config.num_gpu_blocks = pick_of(rng, counts);
  if (sometimes()) config.num_cpu_blocks = pick_of(rng, std::vector<int64_t>{0, 16, -1});
  if (sometimes()) {
    config.gpu_memory_utilization = pick_of(rng, std::vector<double>{0.9, 0.0, 2.0, NAN});
  }
  if (sometimes()) {
    config.sampling.temperature = static_cast<float>(pick_of(rng, std::vector<double>{0, 1, -1}));
  }
}

// Every number finite, and none negative under a key naming a time.
void check_summary(const nlohmann::json& node, const std::string& key) {
  if (node.is_object()) {
    for (const auto& [name, child] : node.items()) check_summary(child, name);
  } else if (node.is_array()) {
    for (const nlohmann::json& child : node) check_summary(child, key);
  } else if (node.is_number()) {
    const double value = node.get<double>();
    ASSERT_TRUE(std::isfinite(value)) << key;
    if (key.ends_with("_s") || key.ends_with("_ms") || key.ends_with("_ns")) {
      ASSERT_GE(value, 0.0) << key;
    }
  }
}

TEST(EngineFuzz, MutatedTracesAndFlagsParseOrFailCleanly) {
  const models::ModelConfig tiny = *models::find_preset("tiny");
  const ScratchFolder scratch("tidal_engine_fuzz", "runs");
  const fs::path& dir = scratch.path();
  std::mt19937_64 rng(0xe9f1a95u);
  int64_t num_accepted = 0;
  int64_t num_rejected = 0;
  int64_t num_runs = 0;
  for (int64_t i = 0; i < kNumInputs; ++i) {
    // Half the inputs keep the trace and try the flags alone (a mutated trace is mostly refused).
    const std::string text = rng() % 2 == 0 ? traces::testing::mutate(kSeedTrace, rng) : kSeedTrace;
    EngineConfig config;
    ReplayOptions replay;
    fuzz_flags(rng, config, replay);
    traces::ReadOptions read_options;
    if (rng() % 2 == 0) read_options.format = traces::TraceFormat::tidal_jsonl;  // --format
    try {
      validate(config, tiny);
      const std::vector<Request> requests =
          prepare_requests(traces::read_trace_text(text, "fuzz.jsonl", read_options), replay);
      int64_t num_tokens = 0;
      for (const Request& r : requests) {
        ASSERT_TRUE(std::isfinite(r.arrival_s));
        ASSERT_GE(r.arrival_s, 0.0);
        ASSERT_LE(r.arrival_s, kMaxReplayArrivalS);
        ASSERT_LE(r.prompt_tokens, base::kMaxTokens);
        ASSERT_LE(r.output_tokens, base::kMaxTokens);
        num_tokens += r.prompt_tokens + r.output_tokens;
        if (r.arrival_s > 0.01) num_tokens = INT64_MAX / 2;  // a real-time wait: not cheap
      }
      ++num_accepted;
      if (num_runs < kNumRuns && num_tokens <= 200 && config.num_threads <= 2 &&
          config.num_gpu_blocks <= 4096) {
        const fs::path trace = dir / "trace.jsonl";
        std::ofstream(trace, std::ios::binary) << text;
        EngineRunArgs args;
        args.model = "tiny";
        args.trace = trace.string();
        if (read_options.format) args.trace_format = "tidal_jsonl";
        args.out_dir = (dir / "out").string();
        args.config = config;
        args.replay = replay;
        ++num_runs;
        run_engine(args);
        std::ifstream summary(dir / "out" / "summary.json");
        check_summary(nlohmann::json::parse(summary), "");
      }
    } catch (const InputError& error) {
      ASSERT_GT(std::string_view(error.what()).size(), 0u);
      ++num_rejected;
    }
  }
  EXPECT_GT(num_accepted, kNumInputs / 20);
  EXPECT_GT(num_rejected, kNumInputs / 20);
  EXPECT_EQ(num_runs, kNumRuns);
}

}  // namespace
}  // namespace tidal::engine
