// The CPU-overhead waves are replayed on the engine under the profiled config's own batching
// policy (a static batch formed at once, its batch size kept) and produce one sample per executed
// step: counted exactly from the documented request lengths. No timing is asserted.
#include "engine/profile/step_overhead.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "models/presets.h"
#include "models/random_weights.h"

namespace tidal::profile {
namespace {

// Operator time 0: every sample is the step's whole measured duration.
class NoOperatorTime final : public perf::StepTimeModel {
 public:
  double step_seconds(std::span<const perf::SeqWork>) const override { return 0.0; }
  double swap_seconds(int64_t) const override { return 0.0; }
  perf::StepBreakdown breakdown(std::span<const perf::SeqWork>) const override { return {}; }
};

constexpr int64_t kPromptTokens = 8;
// Request i of wave w gets 2 + (7i + 3w) mod 4 output tokens: wave 0 gives 2, 5, 4, 3 and wave 1
// gives 5, 4, 3, 2 to requests 0..3. A batch runs as many steps as its longest output.
constexpr int64_t kOutputTokens = 4;
constexpr int kNumWaves = 2;

std::vector<OverheadSample> run_waves(const engine::EngineConfig& config) {
  const models::ModelWeights weights = models::random_weights(*models::find_preset("tiny"), 3);
  const std::vector<int64_t> wave_sizes{1, 2, 4};
  return measure_step_overhead(weights, config, NoOperatorTime{}, wave_sizes, kNumWaves,
                               kPromptTokens, kOutputTokens);
}

int64_t largest_batch(const std::vector<OverheadSample>& samples) {
  int64_t largest = 0;
  for (const OverheadSample& s : samples) largest = std::max(largest, s.num_seqs);
  return largest;
}

TEST(StepOverhead, ContinuousBatchingRunsEachWaveAsOneBatch) {
  engine::EngineConfig config;
  config.scheduler.max_num_seqs = 2;  // raised to the largest wave
  const std::vector<OverheadSample> samples = run_waves(config);
  // Waves of 1, 2 and 4 requests, each one batch: 2 + 5 + 5 steps, then 5 + 5 + 5.
  EXPECT_EQ(samples.size(), size_t{27});
  EXPECT_EQ(largest_batch(samples), 4);
  for (const OverheadSample& s : samples) EXPECT_GT(s.seconds, 0.0);
}

TEST(StepOverhead, StaticBatchingKeepsItsBatchSizeAndDoesNotWait) {
  engine::EngineConfig config;
  config.scheduler.policy = "static";
  config.scheduler.max_num_seqs = 4;
  config.scheduler.static_batch_size = 2;
  config.scheduler.static_batch_timeout_s = 600.0;  // a wave of 1 would otherwise wait 10 minutes
  const std::vector<OverheadSample> samples = run_waves(config);
  // Batches of at most 2: the wave of 4 runs as two batches, one after the other; 2 + 5 + (5 + 4)
  // steps, then 5 + 5 + (5 + 3).
  EXPECT_EQ(samples.size(), size_t{34});
  EXPECT_EQ(largest_batch(samples), 2);
}

}  // namespace
}  // namespace tidal::profile
