// Hostile engine runs (issue 19): impossible flags, scales and traces end in one InputError
// naming the flag or file before anything runs, and over-long requests are rejected without
// their prompts being made.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "engine/engine_run.h"
#include "engine/trace_replay.h"
#include "tests/engine/engine_test_support.h"
#include "tests/scratch_folder.h"
#include "traces/writer.h"

namespace tidal::engine {
namespace {

namespace fs = std::filesystem;
using testing::make_request;

const std::string kScratch = "tidal_hostile_test";

std::string write_trace(const fs::path& dir, const std::vector<Request>& requests) {
  const fs::path path = dir / "trace.jsonl";
  traces::write_trace(path.string(), requests);
  return path.string();
}

std::string error_of(const EngineRunArgs& args) {
  try {
    run_engine(args);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

EngineRunArgs tiny_run(const fs::path& dir, const std::vector<Request>& requests) {
  EngineRunArgs args;
  args.model = "tiny";
  args.trace = write_trace(dir, requests);
  args.out_dir = (dir / "out").string();
  args.replay.time_scale = 0.0;
  return args;
}

TEST(HostileEngineRun, ImpossibleSettingsAreRefused) {
  const ScratchFolder scratch(kScratch, "settings");
  const fs::path& dir = scratch.path();
  EngineRunArgs args = tiny_run(dir, {make_request(0, 0.0, 8, 2)});
  args.config.block_size = 0;
  EXPECT_EQ(error_of(args), "--block-size: must be between 1 and 1024 tokens (got 0)");
  args.config.block_size = 16;
  args.config.num_threads = 100000;
  EXPECT_EQ(error_of(args), "--threads: must be between 1 and 256 (got 100000)");
}

TEST(HostileEngineRun, ScaledArrivalsAndLengthsAreBounded) {
  ReplayOptions options;
  options.time_scale = 1e300;
  try {
    prepare_requests({make_request(0, 0.0, 8, 2), make_request(1, 1.0, 8, 2)}, options);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "--time-scale: request 1 arrives at 1e+300 s after scaling by 1e+300; a "
                 "real-time replay waits at most 86400 s for an arrival (--time-scale 0 sends "
                 "every request at once)");
  }
  options.time_scale = 1.0;
  EXPECT_THROW(prepare_requests({make_request(0, 1e9, 8, 2)}, options), InputError);
  options.time_scale = 0.0;
  EXPECT_EQ(prepare_requests({make_request(0, 1e9, 8, 2)}, options).front().arrival_s, 0.0);
  options.length_scale = 1e30;
  try {
    prepare_requests({make_request(0, 0.0, 8, 2)}, options);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "--length-scale: request 0 would have 8e+30 tokens, beyond the limit of "
                 "1099511627776 per request");
  }
}

TEST(HostileEngineRun, HugeRequestsAreRejectedWithoutTheirPrompts) {
  const ScratchFolder scratch(kScratch, "huge");
  const fs::path& dir = scratch.path();
  const EngineRunArgs args =
      tiny_run(dir, {make_request(0, 0.0, 8, 2), make_request(1, 0.0, 100'000'000'000, 4),
                     make_request(2, 0.0, 8, 100'000'000'000)});
  const EngineRunSummary summary = run_engine(args);
  EXPECT_EQ(summary.num_finished, 1);
  EXPECT_EQ(summary.num_rejected, 2);
}

// The last arrival rejected on arrival used to leave the replay waiting for nothing ("engine
// replay stalled").
TEST(HostileEngineRun, ARequestLargerThanTheArenaIsRejected) {
  const ScratchFolder scratch(kScratch, "arena");
  const fs::path& dir = scratch.path();
  EngineRunArgs args = tiny_run(dir, {make_request(0, 0.0, 8, 2), make_request(1, 0.0, 100, 4)});
  args.config.num_gpu_blocks = 4;  // 64 tokens
  const EngineRunSummary summary = run_engine(args);
  EXPECT_EQ(summary.num_finished, 1);
  EXPECT_EQ(summary.num_rejected, 1);
}

TEST(HostileEngineRun, DepsInACycleNameTheTrace) {
  const ScratchFolder scratch(kScratch, "cycle");
  const fs::path& dir = scratch.path();
  Request a = make_request(0, 0.0, 8, 2);
  Request b = make_request(1, 0.0, 8, 2);
  a.deps = {1};
  b.deps = {0};
  const EngineRunArgs args = tiny_run(dir, {a, b});
  EXPECT_EQ(error_of(args), args.trace + ": deps form a cycle: request 0 waits on 1, 1 on 0");
}

// A trace with a header and no rows would run nothing and say nothing: refused, naming it.
TEST(HostileEngineRun, AHeaderOnlyTraceIsAnError) {
  const ScratchFolder scratch(kScratch, "header_only");
  const fs::path& dir = scratch.path();
  EngineRunArgs args = tiny_run(dir, {make_request(0, 0.0, 8, 2)});
  args.trace = (dir / "header.csv").string();
  std::ofstream(args.trace) << "arrived_at,num_prefill_tokens,num_decode_tokens\n";
  EXPECT_EQ(error_of(args), args.trace + ": no requests (a header and no rows)");
  EXPECT_FALSE(fs::exists(args.out_dir));
}

#ifdef TIDAL_CLI
// The first line `tidal engine run ... EXTRA` writes to stderr; it must fail.
std::string cli_error(const fs::path& dir, const std::string& extra) {
  const std::string trace = write_trace(dir, {make_request(0, 0.0, 8, 2)});
  const std::string command = std::string(TIDAL_CLI) + " engine run --model tiny --trace " + trace +
                              " --out " + (dir / "out").string() + " --time-scale 0 " + extra +
                              " > /dev/null 2> " + (dir / "stderr.txt").string();
  if (std::system(command.c_str()) == 0) return "(exit 0)";
  std::ifstream in(dir / "stderr.txt");
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(HostileEngineRun, ZeroAndNegativeFlagsAreErrors) {
  const ScratchFolder scratch(kScratch, "flags");
  const fs::path& dir = scratch.path();
  EXPECT_EQ(cli_error(dir, "--kv-blocks 0"),
            "tidal: error: --kv-blocks: must be at least 1 (got 0); leave it out to size the "
            "arena from --kv-memory");
  EXPECT_EQ(cli_error(dir, "--max-requests 0"),
            "tidal: error: --max-requests: must be at least 1 (got 0); leave it out to replay "
            "every request");
  EXPECT_EQ(cli_error(dir, "--seed -1"), "--seed: must be >= 0, got -1");
  EXPECT_EQ(cli_error(dir, "--block-size 0"),
            "tidal: error: --block-size: must be between 1 and 1024 tokens (got 0)");
}
#endif

}  // namespace
}  // namespace tidal::engine
