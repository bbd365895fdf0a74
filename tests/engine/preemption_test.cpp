// KV exhaustion: a tiny arena forces preemption (recompute or swap to the host arena); every
// request still completes, with exactly the tokens of a run that never preempts.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "tests/engine/engine_test_support.h"

namespace tidal::engine {
namespace {

using testing::make_request;
using testing::run_to_completion;
using testing::small_config;
using testing::tiny_config;

std::vector<Request> crowded_requests() {
  std::vector<Request> requests;
  for (int64_t i = 0; i < 6; ++i) requests.push_back(make_request(i, 30 + 7 * i, 30));
  return requests;
}

std::map<int64_t, std::vector<int32_t>> roomy_tokens() {
  Engine engine(models::random_weights(tiny_config(), 23), small_config());
  return run_to_completion(engine, crowded_requests());
}

TEST(Preemption, RecomputeWithATinyArenaKeepsTheTokens) {
  EngineConfig config = small_config();
  config.num_gpu_blocks = 12;
  Engine engine(models::random_weights(tiny_config(), 23), config);
  EXPECT_EQ(run_to_completion(engine, crowded_requests()), roomy_tokens());
  EXPECT_GT(engine.scheduler().stats().num_recompute_preemptions, 0);
  EXPECT_EQ(engine.block_manager().num_used_blocks(), 0);
}

TEST(Preemption, SwapToTheHostArenaKeepsTheTokens) {
  EngineConfig config = small_config();
  config.num_gpu_blocks = 12;
  config.num_cpu_blocks = 48;
  config.scheduler.preemption = "swap";
  for (kernels::KvDType dtype : {kernels::KvDType::f32, kernels::KvDType::int8}) {
    SCOPED_TRACE(kernels::kv_dtype_name(dtype));
    config.kv_dtype = dtype;
    EngineConfig roomy = small_config();
    roomy.kv_dtype = dtype;
    Engine reference(models::random_weights(tiny_config(), 23), roomy);
    const auto expected = run_to_completion(reference, crowded_requests());
    Engine engine(models::random_weights(tiny_config(), 23), config);
    std::vector<StepRecord> steps;
    EXPECT_EQ(run_to_completion(engine, crowded_requests(), 7, &steps), expected);
    EXPECT_GT(engine.scheduler().stats().num_swap_preemptions, 0);
    int64_t num_out = 0;
    int64_t num_in = 0;
    for (const StepRecord& s : steps) {
      num_out += s.num_swap_out_blocks;
      num_in += s.num_swap_in_blocks;
    }
    EXPECT_GT(num_out, 0);
    EXPECT_EQ(num_in, num_out) << "every swapped block came back";
    EXPECT_EQ(engine.block_manager().num_used_blocks(), 0);
  }
}

}  // namespace
}  // namespace tidal::engine
