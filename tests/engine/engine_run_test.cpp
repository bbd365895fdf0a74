// `tidal engine run` end to end: a generated tiny checkpoint and a generated trace replayed in
// real time, through the library entry point and once through the CLI.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "engine/engine_run.h"
#include "models/checkpoint.h"
#include "models/model_init.h"
#include "models/presets.h"
#include "tests/scratch_folder.h"
#include "traces/generators.h"
#include "traces/writer.h"

namespace tidal::engine {
namespace {

namespace fs = std::filesystem;

const std::string kScratch = "tidal_engine_test";

std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// 12 Poisson arrivals of short requests, plus one prompt longer than tiny's context (2048).
fs::path write_trace(const fs::path& dir) {
  std::vector<Request> requests =
      traces::generate(nlohmann::json{{"kind", "poisson"},
                                      {"rate", 40},
                                      {"num_requests", 12},
                                      {"prompt", {{"dist", "uniform"}, {"min", 4}, {"max", 60}}},
                                      {"output", {{"dist", "uniform"}, {"min", 1}, {"max", 12}}}},
                       3);
  Request too_long;
  too_long.id = 12;
  too_long.arrival_s = requests.back().arrival_s;
  too_long.prompt_tokens = 3000;
  too_long.output_tokens = 4;
  requests.push_back(too_long);
  const fs::path path = dir / "trace.jsonl";
  traces::write_trace(path.string(), requests);
  return path;
}

TEST(EngineRun, GeneratedModelAndTraceWriteEveryRequest) {
  const ScratchFolder scratch(kScratch, "run");
  const fs::path& dir = scratch.path();
  models::init_checkpoint(*models::find_preset("tiny"), dir / "model", 5, models::TensorDType::f32);
  EngineRunArgs args;
  args.model = (dir / "model").string();
  args.trace = write_trace(dir).string();
  args.out_dir = (dir / "out").string();
  args.config.num_gpu_blocks = 256;
  args.config.spec = parse_spec_config("ngram:2", "--spec");
  args.replay.time_scale = 0.5;
  const EngineRunSummary summary = run_engine(args);
  EXPECT_EQ(summary.num_requests, 13);
  EXPECT_EQ(summary.num_finished, 12);
  EXPECT_EQ(summary.num_rejected, 1);
  EXPECT_TRUE(summary.memory.weights_match_formula());
  EXPECT_TRUE(summary.memory.kv_matches_formula());

  const std::vector<std::string> rows = read_lines(dir / "out" / "requests.csv");
  ASSERT_EQ(rows.size(), 14u) << "header + every request";
  EXPECT_EQ(rows[0],
            "id,workload,tenant,slo_class,arrival_s,first_scheduled_s,first_token_s,finish_s,"
            "prompt_tokens,output_tokens,replica,pool,preemptions,prefix_hit_tokens,ttft_s,tpot_s,"
            "e2e_s,queue_delay_s,max_itl_s,slo_met,status,reason");
  int num_finished = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].find(",finished,") != std::string::npos) ++num_finished;
  }
  EXPECT_EQ(num_finished, 12);
  EXPECT_NE(rows.back().find("3000,4,0,engine"), std::string::npos) << rows.back();
  EXPECT_NE(rows.back().find(",rejected,exceeds_max_model_len"), std::string::npos) << rows.back();

  const std::vector<std::string> steps = read_lines(dir / "out" / "steps.csv");
  ASSERT_GE(steps.size(), 2u);
  EXPECT_EQ(steps[0].rfind("step,start_s,duration_s,execute_s,draft_s,num_seqs,", 0), 0u);
  EXPECT_EQ(static_cast<int64_t>(steps.size()) - 1, summary.num_steps);

  std::ifstream summary_file(dir / "out" / "summary.json");
  const nlohmann::json json = nlohmann::json::parse(summary_file);
  EXPECT_EQ(json["metrics"]["num_requests"], 13);
  EXPECT_EQ(json["metrics"]["num_finished"], 12);
  EXPECT_EQ(json["metrics"]["rejections"]["exceeds_max_model_len"], 1);
  EXPECT_EQ(json["memory"]["kv_matches_formula"], true);
  EXPECT_EQ(json["speculative"]["method"], "ngram:2");
  EXPECT_TRUE(fs::exists(dir / "out" / "timeline.csv"));
  EXPECT_TRUE(fs::exists(dir / "out" / "trace.json"));
  std::ifstream trace_file(dir / "out" / "trace.json");
  const nlohmann::json trace = nlohmann::json::parse(trace_file);
  EXPECT_EQ(trace["otherData"]["num_slices_written"], summary.num_steps);
}

TEST(EngineRun, MissingCheckpointTensorIsNamed) {
  const ScratchFolder scratch(kScratch, "missing");
  const fs::path& dir = scratch.path();
  models::init_checkpoint(*models::find_preset("tiny"), dir / "model", 5, models::TensorDType::f32);
  // Claim a third layer the file does not hold.
  nlohmann::json config;
  std::ifstream(dir / "model" / "config.json") >> config;
  config["num_hidden_layers"] = 3;
  std::ofstream(dir / "model" / "config.json") << config.dump();
  EngineRunArgs args;
  args.model = (dir / "model").string();
  args.trace = write_trace(dir).string();
  args.out_dir = (dir / "out").string();
  try {
    run_engine(args);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("model.layers.2."), std::string::npos) << e.what();
  }
}

TEST(EngineRun, BadOptionsAreInputErrors) {
  const ScratchFolder scratch(kScratch, "bad");
  const fs::path& dir = scratch.path();
  EngineRunArgs args;
  args.model = "no-such-model";
  args.trace = write_trace(dir).string();
  args.out_dir = (dir / "out").string();
  EXPECT_THROW(run_engine(args), InputError);
  args.model = "tiny";
  args.config.tp = 3;
  EXPECT_THROW(run_engine(args), InputError);
  args.config.tp = 1;
  args.replay.time_scale = -1.0;
  EXPECT_THROW(run_engine(args), InputError);
  EXPECT_THROW(parse_kv_dtype("fp16", "--kv-dtype"), InputError);
}

#ifdef TIDAL_CLI
TEST(EngineRun, CliSmokeTest) {
  const ScratchFolder scratch(kScratch, "cli");
  const fs::path& dir = scratch.path();
  const fs::path trace = write_trace(dir);
  const std::string command = std::string(TIDAL_CLI) + " engine run --model tiny --trace " +
                              trace.string() + " --out " + (dir / "out").string() +
                              " --time-scale 0 --kv-blocks 256 --quant int8 --kv-dtype int8" +
                              " --spec draft:1:2 > " + (dir / "stdout.txt").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  EXPECT_EQ(read_lines(dir / "out" / "requests.csv").size(), 14u);
  const std::string bad = std::string(TIDAL_CLI) + " engine run --model tiny --trace " +
                          trace.string() + " --out " + (dir / "bad").string() +
                          " --spec medusa:2 2> " + (dir / "stderr.txt").string();
  EXPECT_NE(std::system(bad.c_str()), 0);
  const std::vector<std::string> err = read_lines(dir / "stderr.txt");
  ASSERT_FALSE(err.empty());
  EXPECT_EQ(err[0].rfind("tidal: error: --spec: unknown speculative decoding 'medusa:2'", 0), 0u)
      << err[0];
}
#endif

}  // namespace
}  // namespace tidal::engine
