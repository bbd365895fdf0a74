// Prefix caching for real: requests sharing leading prefix_blocks get identical synthesized
// tokens there, a later request reuses the cached KV blocks, and its tokens equal a cold run's.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "tests/engine/engine_test_support.h"

namespace tidal::engine {
namespace {

using testing::FakeClock;
using testing::make_request;
using testing::run_to_completion;
using testing::small_config;
using testing::tiny_config;

Request with_prefix(int64_t id, int64_t prompt_tokens, std::vector<uint64_t> blocks) {
  Request r = make_request(id, prompt_tokens, 10);
  r.prefix_blocks = std::move(blocks);
  r.prefix_block_tokens = 16;
  return r;
}

TEST(PrefixCache, SharedBlocksGetIdenticalPromptTokens) {
  const Request a = with_prefix(0, 56, {11, 12, 13, 14});
  const Request b = with_prefix(1, 60, {11, 12, 13, 99});
  const std::vector<int32_t> pa = synthesize_prompt(a, 512, 7);
  const std::vector<int32_t> pb = synthesize_prompt(b, 512, 7);
  EXPECT_TRUE(std::equal(pa.begin(), pa.begin() + 48, pb.begin()));
  EXPECT_FALSE(std::equal(pa.begin() + 48, pa.end(), pb.begin() + 48));
}

TEST(PrefixCache, HitGivesTheSameTokensAsAColdRun) {
  const Request a = with_prefix(0, 56, {11, 12, 13, 14});
  const Request b = with_prefix(1, 60, {11, 12, 13, 99});

  Engine warm(models::random_weights(tiny_config(), 5), small_config());
  FakeClock clock;
  run_to_completion(warm, {a}, clock);
  std::vector<StepRecord> steps;
  const auto warm_outputs = run_to_completion(warm, {b}, clock, 7, &steps);
  ASSERT_FALSE(steps.empty());
  ASSERT_EQ(steps.front().seqs.size(), 1u);
  EXPECT_EQ(steps.front().seqs[0].num_prefix_hit_tokens, 48) << "three shared 16-token blocks";
  EXPECT_EQ(steps.front().seqs[0].num_new_tokens, 12);

  EngineConfig cold_config = small_config();
  cold_config.enable_prefix_caching = false;
  Engine cold(models::random_weights(tiny_config(), 5), cold_config);
  const auto cold_outputs = run_to_completion(cold, {b});
  EXPECT_EQ(warm_outputs.at(1), cold_outputs.at(1));
}

TEST(PrefixCache, ConcurrentSharersMatchColdRuns) {
  std::vector<Request> requests;
  for (int64_t i = 0; i < 4; ++i) {
    requests.push_back(with_prefix(i, 40 + 5 * i, {7, 8, static_cast<uint64_t>(100 + i), 1, 2}));
  }
  EngineConfig config = small_config();
  config.scheduler.max_num_seqs = 1;  // one at a time: later ones hit the earlier ones' blocks
  Engine warm(models::random_weights(tiny_config(), 9), config);
  const auto warm_outputs = run_to_completion(warm, requests);
  EXPECT_GT(warm.scheduler().stats().num_prefix_hit_tokens, 0);

  EngineConfig cold_config = small_config();
  cold_config.enable_prefix_caching = false;
  Engine cold(models::random_weights(tiny_config(), 9), cold_config);
  EXPECT_EQ(warm_outputs, run_to_completion(cold, requests));
}

}  // namespace
}  // namespace tidal::engine
