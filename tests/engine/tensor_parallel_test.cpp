// Tensor parallelism on the CPU: the shared-memory all-reduce, and TP = 1 / 2 / 4 engines giving
// the same greedy tokens and logits within tolerance.
#include <cmath>
#include <thread>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "engine/engine.h"
#include "engine/shm_communicator.h"
#include "engine/tensor_parallel_executor.h"
#include "tests/engine/engine_test_support.h"

namespace tidal::engine {
namespace {

using testing::make_request;
using testing::run_to_completion;
using testing::small_config;
using testing::tp4_config;

TEST(SharedMemoryCommunicator, SumsInRankOrderWithIdenticalBytesOnEveryRank) {
  constexpr int kRanks = 3;
  constexpr size_t kCount = 1001;
  SharedMemoryGroup group(kRanks);
  std::vector<std::vector<float>> buffers(kRanks);  // [ranks][count]
  for (int r = 0; r < kRanks; ++r) {
    for (size_t i = 0; i < kCount; ++i) {
      buffers[r].push_back(std::sin(static_cast<float>(i * (r + 1))) * 1e3f + 0.1f * r);
    }
  }
  std::vector<float> expected(kCount);  // ((b0 + b1) + b2)
  for (size_t i = 0; i < kCount; ++i) expected[i] = (buffers[0][i] + buffers[1][i]) + buffers[2][i];
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r) {
    threads.emplace_back([&, r] {
      // Round 1 sums the inputs; rounds 2 and 3 sum identical buffers.
      for (int round = 0; round < 3; ++round) {
        group.communicator(r).all_reduce_sum(buffers[r].data(), kCount);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < kCount; ++i) {
    const float once = expected[i];
    const float twice = (once + once) + once;
    const float thrice = (twice + twice) + twice;
    for (int r = 0; r < kRanks; ++r)
      ASSERT_EQ(buffers[r][i], thrice) << "rank " << r << " at " << i;
  }
  EXPECT_EQ(group.communicator(2).rank(), 2);
  EXPECT_EQ(group.communicator(0).world_size(), kRanks);
}

TEST(SharedMemoryCommunicator, RejectsAnEmptyGroup) {
  EXPECT_THROW(SharedMemoryGroup(0), std::invalid_argument);
}

std::vector<Request> tp_requests() {
  return {make_request(0, 33, 16), make_request(1, 7, 12), make_request(2, 58, 8)};
}

TEST(TensorParallel, OneTwoAndFourRanksGiveTheSameGreedyTokens) {
  std::map<int64_t, std::vector<int32_t>> tp1;
  for (int tp : {1, 2, 4}) {
    SCOPED_TRACE(tp);
    EngineConfig config = small_config();
    config.tp = tp;
    Engine engine(models::random_weights(tp4_config(), 21), config);
    const auto outputs = run_to_completion(engine, tp_requests());
    if (tp == 1) {
      tp1 = outputs;
    } else {
      EXPECT_EQ(outputs, tp1);
    }
    EXPECT_EQ(engine.memory().tp, tp);
  }
}

// One prefill of 20 tokens straight through the executor.
std::vector<float> prefill_logits(int tp) {
  ExecutorConfig config;
  config.tp = tp;
  config.kv_dtype = kernels::KvDType::f32;
  config.num_gpu_blocks = 4;
  TensorParallelExecutor executor(models::random_weights(tp4_config(), 21), config);
  models::ForwardBatch batch;
  models::SequenceInput seq;
  for (int32_t p = 0; p < 20; ++p) {
    seq.token_ids.push_back((p * 37 + 5) % 512);
    seq.positions.push_back(p);
    seq.slot_mapping.push_back(16 + p);  // blocks 1 and 2
  }
  seq.block_table = {1, 2};
  batch.sequences.push_back(seq);
  batch.num_logit_rows = {20};  // every row
  return executor.forward(batch);
}

TEST(TensorParallel, LogitsAgreeWithinTolerance) {
  const std::vector<float> reference = prefill_logits(1);
  ASSERT_EQ(reference.size(), 20u * 512u);
  float scale = 0.0f;
  for (float x : reference) scale = std::max(scale, std::abs(x));
  for (int tp : {2, 4}) {
    const std::vector<float> logits = prefill_logits(tp);
    ASSERT_EQ(logits.size(), reference.size());
    float max_diff = 0.0f;
    for (size_t i = 0; i < logits.size(); ++i) {
      max_diff = std::max(max_diff, std::abs(logits[i] - reference[i]));
    }
    // Only the summation order of the row-parallel partial sums differs.
    EXPECT_LE(max_diff, 1e-5f * scale) << "tp " << tp;
    EXPECT_EQ(logits, prefill_logits(tp)) << "reproducible bytes at tp " << tp;
  }
}

TEST(TensorParallel, RejectsADegreeThatDoesNotDivideTheHeads) {
  EngineConfig config = small_config();
  config.tp = 3;
  EXPECT_THROW(Engine(models::random_weights(tp4_config(), 1), config), InputError);
}

}  // namespace
}  // namespace tidal::engine
