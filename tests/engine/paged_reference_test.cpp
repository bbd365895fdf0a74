// The engine's paged, batched, chunked execution against the reference forward (llama2.c-style,
// one token at a time, contiguous fp32 KV): greedy tokens must agree exactly.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "tests/engine/engine_test_support.h"

namespace tidal::engine {
namespace {

using testing::make_request;
using testing::reference_greedy;
using testing::run_to_completion;
using testing::small_config;

void expect_reference_tokens(const models::ModelConfig& model, EngineConfig config,
                             const std::vector<Request>& requests) {
  const models::ModelWeights weights = models::random_weights(model, 11);
  Engine engine(models::random_weights(model, 11), config);
  const auto outputs = run_to_completion(engine, requests);
  for (const Request& r : requests) {
    const std::vector<int32_t> prompt = synthesize_prompt(r, model.vocab_size, 7);
    EXPECT_EQ(outputs.at(r.id), reference_greedy(weights, prompt, r.output_tokens))
        << "request " << r.id;
  }
}

const std::vector<Request> kRequests = {make_request(0, 45, 14), make_request(1, 3, 20),
                                        make_request(2, 70, 6), make_request(3, 17, 17)};

TEST(PagedVsReference, ContinuousBatchingMatchesReferenceGreedy) {
  expect_reference_tokens(testing::tiny_config(), small_config(), kRequests);
}

TEST(PagedVsReference, ChunkedPrefillMatchesReferenceGreedy) {
  EngineConfig config = small_config();
  config.scheduler.policy = "chunked_prefill";
  config.scheduler.max_num_batched_tokens = 24;  // prompts arrive in several chunks
  expect_reference_tokens(testing::tiny_config(), config, kRequests);
}

TEST(PagedVsReference, SmallBlocksAndThreadsMatchReferenceGreedy) {
  EngineConfig config = small_config();
  config.block_size = 4;
  config.num_gpu_blocks = 200;
  config.num_threads = 2;
  expect_reference_tokens(testing::tiny_config(), config, kRequests);
}

TEST(PagedVsReference, Llama3RopeScalingAndTiedHeadMatchReference) {
  expect_reference_tokens(*models::find_preset("tiny-llama3"), small_config(), kRequests);
}

TEST(PagedVsReference, MixtureOfExpertsMatchesReference) {
  expect_reference_tokens(*models::find_preset("tiny-moe"), small_config(), kRequests);
}

}  // namespace
}  // namespace tidal::engine
