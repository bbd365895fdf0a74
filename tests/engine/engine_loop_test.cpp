// The engine step loop: schedule, execute, update until every request finished.
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

std::vector<Request> mixed_requests() {
  return {make_request(0, 37, 12), make_request(1, 5, 20),  make_request(2, 64, 1),
          make_request(3, 100, 9), make_request(4, 16, 16), make_request(5, 1, 3)};
}

void expect_complete(const Engine& engine, const std::vector<Request>& requests,
                     const std::map<int64_t, std::vector<int32_t>>& outputs) {
  for (const Request& r : requests) {
    EXPECT_EQ(static_cast<int64_t>(outputs.at(r.id).size()), r.output_tokens) << r.id;
    for (int32_t t : outputs.at(r.id)) {
      EXPECT_GE(t, 0);
      EXPECT_LT(t, engine.model_config().vocab_size);
    }
  }
  EXPECT_EQ(engine.scheduler().stats().num_finished, static_cast<int64_t>(requests.size()));
  EXPECT_EQ(engine.block_manager().check_invariants(), "");
  EXPECT_EQ(engine.block_manager().num_used_blocks(), 0) << "every block back in the pool";
}

TEST(EngineLoop, CompletesEveryRequestUnderEachPolicy) {
  for (const char* policy : {"continuous", "static", "chunked_prefill"}) {
    SCOPED_TRACE(policy);
    EngineConfig config = small_config();
    config.scheduler.policy = policy;
    config.scheduler.max_num_batched_tokens = std::string(policy) == "chunked_prefill" ? 32 : 4096;
    config.scheduler.static_batch_size = 4;
    Engine engine(models::random_weights(tiny_config(), 1), config);
    const std::vector<Request> requests = mixed_requests();
    expect_complete(engine, requests, run_to_completion(engine, requests));
  }
}

TEST(EngineLoop, StepRecordsDescribeThePlan) {
  EngineConfig config = small_config();
  config.scheduler.policy = "chunked_prefill";
  config.scheduler.max_num_batched_tokens = 32;
  Engine engine(models::random_weights(tiny_config(), 1), config);
  std::vector<StepRecord> steps;
  const std::vector<Request> requests = mixed_requests();
  run_to_completion(engine, requests, 7, &steps);
  int64_t num_output_tokens = 0;
  int64_t num_scheduled_tokens = 0;
  for (const StepRecord& step : steps) {
    int64_t num_new = 0;
    for (const sched::ScheduledSeq& s : step.seqs) num_new += s.num_new_tokens;
    EXPECT_LE(num_new, 32);
    EXPECT_EQ(step.num_prefill_tokens + step.num_decode_tokens, num_new);
    EXPECT_LE(step.start_ns, step.end_ns);
    ASSERT_EQ(step.events.size(), step.seqs.size());
    for (const sched::RequestEvent& e : step.events) num_output_tokens += e.num_new_output_tokens;
    num_scheduled_tokens += num_new;
  }
  int64_t expected_output = 0;
  int64_t expected_tokens = 0;  // every prompt token and every output token but the last
  for (const Request& r : requests) {
    expected_output += r.output_tokens;
    expected_tokens += r.prompt_tokens + r.output_tokens - 1;
  }
  EXPECT_EQ(num_output_tokens, expected_output);
  EXPECT_EQ(num_scheduled_tokens, expected_tokens);
}

TEST(EngineLoop, SameInputsGiveSameTokens) {
  const std::vector<Request> requests = mixed_requests();
  Engine a(models::random_weights(tiny_config(), 3), small_config());
  Engine b(models::random_weights(tiny_config(), 3), small_config());
  EXPECT_EQ(run_to_completion(a, requests), run_to_completion(b, requests));
}

TEST(EngineLoop, RejectsWhatCanNeverRun) {
  Engine engine(models::random_weights(tiny_config(), 1), small_config());
  const int64_t vocab = engine.model_config().vocab_size;
  // tiny's context is 2048 positions: max_model_len is cut to it.
  EXPECT_EQ(engine.config().scheduler.max_model_len, 2048);
  const Request too_long = make_request(0, 2040, 9);
  EXPECT_EQ(engine.add_request(too_long, synthesize_prompt(too_long, vocab, 0), 0),
            sched::RejectReason::exceeds_max_model_len);
  // 128 blocks of 16 tokens hold 2048 tokens; this one fits the context but never the arena.
  EngineConfig config = small_config();
  config.num_gpu_blocks = 8;
  Engine small(models::random_weights(tiny_config(), 1), config);
  const Request too_big = make_request(1, 200, 10);
  EXPECT_EQ(small.add_request(too_big, synthesize_prompt(too_big, vocab, 0), 0),
            sched::RejectReason::exceeds_kv_capacity);
  EXPECT_FALSE(small.has_unfinished());
}

TEST(EngineLoop, DerivesArenaBlocksFromTheMemoryBudget) {
  EngineConfig config;
  config.kv_dtype = kernels::KvDType::bf16;
  config.num_gpu_blocks = 0;
  config.kv_cache_bytes = 1 << 20;
  // tiny: 2 layers x 2 (k, v) x 2 kv heads x 16 dims x 2 bytes = 256 bytes per token.
  EXPECT_EQ(num_gpu_blocks_for(config, tiny_config()), (1 << 20) / (16 * 256));
  config.tp = 2;
  EXPECT_EQ(num_gpu_blocks_for(config, tiny_config()), (1 << 20) / (16 * 128));
  config.kv_cache_bytes = 100;
  EXPECT_THROW(num_gpu_blocks_for(config, tiny_config()), InputError);
}

}  // namespace
}  // namespace tidal::engine
