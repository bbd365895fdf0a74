// PagedModel's graph path on the CPU: a StepGraphs that keeps each captured step and runs it again
// on replay (what a CUDA graph does with the device work) checks the padding to a recorded batch
// size, the fixed input addresses and the block-table width buckets. The default CPU backend is
// batch-invariant, so graphed logits must equal the eager ones bit for bit.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <utility>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/step_graphs.h"
#include "models/memory_footprint.h"
#include "models/paged_forward.h"
#include "models/presets.h"
#include "models/random_weights.h"
#include "tests/models/model_test_support.h"

namespace tidal::models {
namespace {

class RecordingStepGraphs final : public kernels::StepGraphs {
 public:
  int64_t padded_batch_size(int64_t num_seqs) const override {
    for (const int64_t size : {1, 2, 4, 8}) {
      if (size >= num_seqs) return size;
    }
    return -1;
  }
  int64_t max_batch_size() const override { return 8; }
  void reserve(const kernels::AttentionBatch&, int64_t, int64_t) override { ++num_reserves; }
  bool has(int64_t batch_size, int64_t blocks_per_seq) const override {
    return steps_.contains({batch_size, blocks_per_seq});
  }
  void capture(int64_t batch_size, int64_t blocks_per_seq,
               const std::function<void()>& step) override {
    steps_[{batch_size, blocks_per_seq}] = step;
  }
  void replay(int64_t batch_size, int64_t blocks_per_seq) override {
    steps_.at({batch_size, blocks_per_seq})();
    ++num_replays;
  }
  std::vector<std::pair<int64_t, int64_t>> keys() const {
    std::vector<std::pair<int64_t, int64_t>> keys;
    for (const auto& [key, step] : steps_) keys.push_back(key);
    return keys;
  }

  int num_reserves = 0;
  int num_replays = 0;

 private:
  std::map<std::pair<int64_t, int64_t>, std::function<void()>> steps_;
};

constexpr int64_t kNumBlocks = 256;
constexpr int64_t kBlockSize = 4;

// One model with its arena and block tables; the same seed gives the same tables.
struct Runner {
  Runner(const ModelWeights& weights, kernels::StepGraphs* graphs)
      : model(weights, backend, comm),
        arena(kv_cache_spec(weights, kNumBlocks, kBlockSize, kernels::KvDType::f32)),
        seqs(kNumBlocks, kBlockSize, 11) {
    model.set_step_graphs(graphs);
  }
  std::vector<float> step(const std::vector<int>& ids,
                          const std::vector<std::vector<int32_t>>& tokens) {
    ForwardBatch batch;
    for (size_t i = 0; i < ids.size(); ++i) batch.sequences.push_back(seqs.step(ids[i], tokens[i]));
    return model.forward(batch, arena.view());
  }

  kernels::cpu::CpuBackend backend{2};
  SingleRankCommunicator comm;
  PagedModel model;
  kernels::KvArena arena;
  testing::PagedSequences seqs;
};

class PagedForwardGraphsTest : public ::testing::TestWithParam<std::string> {};

// 9 sequences prefilled (5..77 tokens: block tables of 2..20 blocks, both sides of the 16-block
// bucket), then 24 decode steps over the first n of them, n cycling through 1, 3, 8, 5, 2, 9
// (9 has no recorded size: eager), with a mixed step (one sequence verifying 3 tokens) between.
TEST_P(PagedForwardGraphsTest, DecodeStepsEqualEagerBitForBit) {
  const ModelWeights weights = random_weights(*find_preset(GetParam()), 77);
  const int64_t vocab = weights.config.vocab_size;
  RecordingStepGraphs graphs;
  Runner eager(weights, nullptr);
  Runner graphed(weights, &graphs);
  std::mt19937_64 rng(12);
  std::vector<int> ids;
  std::vector<std::vector<int32_t>> prompts;
  for (int s = 0; s < 9; ++s) {
    ids.push_back(eager.seqs.add_sequence());
    graphed.seqs.add_sequence();
    prompts.push_back(testing::random_tokens(rng, 5 + 9 * s, vocab));
  }
  EXPECT_EQ(graphed.step(ids, prompts), eager.step(ids, prompts));
  int num_graphed_steps = 0;
  const std::vector<int> batch_sizes{1, 3, 8, 5, 2, 9};
  for (int step = 0; step < 24; ++step) {
    const auto n = static_cast<size_t>(batch_sizes[static_cast<size_t>(step) % batch_sizes.size()]);
    const std::vector<int> batch_ids(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<std::vector<int32_t>> tokens;
    for (size_t i = 0; i < n; ++i) {
      tokens.push_back(testing::random_tokens(rng, step == 10 && i == 0 ? 3 : 1, vocab));
    }
    const std::vector<float> expected = eager.step(batch_ids, tokens);
    const std::vector<float> logits = graphed.step(batch_ids, tokens);
    ASSERT_EQ(logits.size(), n * static_cast<size_t>(vocab)) << "step " << step;
    EXPECT_EQ(logits, expected) << "step " << step << ", " << n << " sequences";
    num_graphed_steps += !weights.config.is_moe() && n <= 8 && step != 10;
  }
  EXPECT_EQ(graphs.num_replays, num_graphed_steps);
  if (weights.config.is_moe()) {
    EXPECT_TRUE(graphs.keys().empty());  // routing is read on the host: eager
    return;
  }
  // Padded sizes 1, 2, 4 and 8 (5 sequences) at width 16 (tables up to 16 blocks), 8 (8
  // sequences, the longest tables 18+ blocks) at width 32.
  const std::vector<std::pair<int64_t, int64_t>> keys = graphs.keys();
  EXPECT_EQ(keys, (std::vector<std::pair<int64_t, int64_t>>{
                      {1, 16}, {2, 16}, {4, 16}, {8, 16}, {8, 32}}));
  EXPECT_EQ(graphs.num_reserves, 2 + static_cast<int>(keys.size()));  // largest shapes first
}

TEST_P(PagedForwardGraphsTest, StepsOnAnotherArenaRunEagerly) {
  const ModelWeights weights = random_weights(*find_preset(GetParam()), 78);
  RecordingStepGraphs graphs;
  Runner graphed(weights, &graphs);
  const int seq = graphed.seqs.add_sequence();
  graphed.step({seq}, {{1, 2, 3}});
  graphed.step({seq}, {{4}});
  kernels::KvArena other(kv_cache_spec(weights, kNumBlocks, kBlockSize, kernels::KvDType::f32));
  ForwardBatch batch;
  batch.sequences.push_back(graphed.seqs.step(seq, {5}));
  graphed.model.forward(batch, other.view());
  EXPECT_EQ(graphs.num_replays, weights.config.is_moe() ? 0 : 1);
}

INSTANTIATE_TEST_SUITE_P(Presets, PagedForwardGraphsTest, testing::preset_params(),
                         testing::preset_test_name);

}  // namespace
}  // namespace tidal::models
