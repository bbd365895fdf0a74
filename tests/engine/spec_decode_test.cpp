// Speculative decoding through the normal scheduler path: greedy verification must reproduce
// plain greedy decoding bit for bit, for both drafters, with preemption and tensor parallelism.
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "engine/engine.h"
#include "tests/engine/engine_test_support.h"

namespace tidal::engine {
namespace {

using testing::make_request;
using testing::run_to_completion;
using testing::small_config;
using testing::tiny_config;

std::vector<Request> spec_requests() {
  return {make_request(0, 40, 40), make_request(1, 9, 33), make_request(2, 70, 25),
          make_request(3, 24, 2), make_request(4, 31, 1)};
}

std::map<int64_t, std::vector<int32_t>> plain_tokens(EngineConfig config) {
  Engine engine(models::random_weights(tiny_config(), 17), config);
  return run_to_completion(engine, spec_requests());
}

void expect_bit_identical(EngineConfig config, const std::string& spec,
                          std::optional<models::ModelWeights> draft = std::nullopt) {
  const auto plain = plain_tokens(config);
  config.spec = parse_spec_config(spec, "--spec");
  Engine engine(models::random_weights(tiny_config(), 17), config, std::move(draft));
  std::vector<StepRecord> steps;
  const auto outputs = run_to_completion(engine, spec_requests(), 7, &steps);
  EXPECT_EQ(outputs, plain);
  const SpecStats& stats = engine.spec_stats();
  EXPECT_GT(stats.num_draft_tokens, 0);
  EXPECT_GE(stats.acceptance_rate(), 0.0);
  EXPECT_LE(stats.acceptance_rate(), 1.0);
  EXPECT_GE(stats.mean_accepted_length(), 1.0);
  EXPECT_LE(stats.mean_accepted_length(), 1.0 + config.spec.num_spec_tokens);
  int64_t num_verified = 0;
  for (const StepRecord& s : steps) {
    for (const sched::ScheduledSeq& seq : s.seqs) {
      EXPECT_LE(seq.num_spec_tokens, config.spec.num_spec_tokens);
      num_verified += seq.num_spec_tokens;
    }
  }
  EXPECT_EQ(num_verified, stats.num_draft_tokens);
  EXPECT_EQ(engine.block_manager().num_used_blocks(), 0);
}

TEST(SpecDecode, NgramGreedyIsBitIdenticalToPlainDecoding) {
  expect_bit_identical(small_config(), "ngram:3");
}

TEST(SpecDecode, TruncatedTargetDraftIsBitIdenticalToPlainDecoding) {
  expect_bit_identical(small_config(), "draft:1:3");
}

TEST(SpecDecode, FullDepthDraftAcceptsEverything) {
  // The whole target as its own draft: every draft token is the target's greedy token.
  EngineConfig config = small_config();
  config.spec = parse_spec_config("draft:2:4", "--spec");
  Engine engine(models::random_weights(tiny_config(), 17), config);
  EXPECT_EQ(run_to_completion(engine, spec_requests()), plain_tokens(small_config()));
  EXPECT_EQ(engine.spec_stats().acceptance_rate(), 1.0);
}

TEST(SpecDecode, SeparateDraftModelIsBitIdenticalToPlainDecoding) {
  models::ModelConfig draft = *models::find_preset("tiny-llama3");
  ASSERT_EQ(draft.vocab_size, tiny_config().vocab_size);
  expect_bit_identical(small_config(), "draft:tiny-llama3:2", models::random_weights(draft, 3));
}

TEST(SpecDecode, BitIdenticalUnderChunkingPreemptionAndTensorParallelism) {
  EngineConfig config = small_config();
  config.scheduler.policy = "chunked_prefill";
  config.scheduler.max_num_batched_tokens = 48;
  config.num_gpu_blocks = 14;  // forces preemption of the latest requests
  expect_bit_identical(config, "draft:1:2");
  expect_bit_identical(config, "ngram:2");
  EngineConfig swap = config;
  swap.scheduler.preemption = "swap";
  swap.num_cpu_blocks = 64;
  expect_bit_identical(swap, "ngram:4");
  EngineConfig tp = small_config();
  tp.tp = 2;
  expect_bit_identical(tp, "draft:1:3");
}

TEST(SpecDecode, StochasticVerificationIsDeterministicPerSeed) {
  EngineConfig config = small_config();
  config.sampling.temperature = 0.8f;
  config.sampling.top_k = 50;
  config.seed = 4;
  for (const char* spec : {"ngram:3", "draft:1:3"}) {
    SCOPED_TRACE(spec);
    config.spec = parse_spec_config(spec, "--spec");
    Engine a(models::random_weights(tiny_config(), 17), config);
    Engine b(models::random_weights(tiny_config(), 17), config);
    const auto outputs = run_to_completion(a, spec_requests());
    EXPECT_EQ(outputs, run_to_completion(b, spec_requests()));
    for (const Request& r : spec_requests()) {
      EXPECT_EQ(static_cast<int64_t>(outputs.at(r.id).size()), r.output_tokens);
    }
    EXPECT_GT(a.spec_stats().num_draft_tokens, 0);
  }
}

TEST(SpecDecode, ParsesAndRejectsSpecOptions) {
  EXPECT_EQ(parse_spec_config("none", "--spec").method, SpecMethod::none);
  const SpecConfig ngram = parse_spec_config("ngram:5", "--spec");
  EXPECT_EQ(ngram.method, SpecMethod::ngram);
  EXPECT_EQ(ngram.num_spec_tokens, 5);
  const SpecConfig truncated = parse_spec_config("draft:2:3", "--spec");
  EXPECT_EQ(truncated.num_draft_layers, 2);
  EXPECT_EQ(truncated.num_spec_tokens, 3);
  const SpecConfig model = parse_spec_config("draft:/tmp/a:b/ckpt:4", "--spec");
  EXPECT_EQ(model.draft_model, "/tmp/a:b/ckpt");
  EXPECT_EQ(model.num_spec_tokens, 4);
  EXPECT_EQ(spec_config_name(truncated), "draft:2:3");
  for (const char* bad : {"ngram", "ngram:0", "ngram:x", "medusa:3", "draft:3", "draft::3"}) {
    EXPECT_THROW(parse_spec_config(bad, "--spec"), InputError) << bad;
  }
  try {
    parse_spec_config("ngram:-1", "--spec");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--spec: 'ngram:-1': K (draft tokens per step) must be a positive integer (expected "
              "none, ngram:K or draft:LAYERS:K / draft:MODEL:K)");
  }
  EngineConfig config = small_config();
  config.spec = parse_spec_config("draft:3:2", "--spec");
  EXPECT_THROW(Engine(models::random_weights(tiny_config(), 1), config), InputError)
      << "tiny has 2 layers";
}

}  // namespace
}  // namespace tidal::engine
