// CUDA graphs in the engine's decode steps: the executor with graphs on against graphs off, on
// the same random model, over a prefill of 8 sequences and 40 greedy decode steps whose batch
// cycles through 1, 3, 8, 5, 2 sequences (padded to 1, 4, 8, 8, 2): greedy tokens equal, logits
// within 1e-5 of the largest (a padded batch may take another cuBLAS algorithm), and with two
// GPUs the same for tp 2. Every test skips itself without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/cuda_ranks.h"
#include "engine/tensor_parallel_executor.h"
#include "kernels/sampling.h"
#include "models/random_weights.h"
#include "tests/cuda/cuda_test_util.h"
#include "tests/engine/engine_test_support.h"

namespace tidal::engine {
namespace {

using kernels::cuda::testing::scaled_max_error;

constexpr int kNumSeqs = 8;
constexpr int kBlocksPerSeq = 8;  // 128 tokens of 16

struct GreedyRun {
  std::vector<int32_t> tokens;  // every decode step's tokens, in order
  std::vector<float> logits;    // every decode step's logits rows, in order
};

GreedyRun greedy_run(int tp, bool cuda_graphs) {
  ExecutorConfig config;
  config.backend = BackendKind::cuda;
  config.tp = tp;
  config.kv_dtype = kernels::KvDType::f32;
  config.num_gpu_blocks = kNumSeqs * kBlocksPerSeq;
  config.cuda_graphs = cuda_graphs;
  TensorParallelExecutor executor(models::random_weights(testing::tp4_config(), 31), config);
  const int64_t vocab = executor.model_config().vocab_size;
  std::vector<int32_t> last_token(kNumSeqs);
  std::vector<int32_t> num_cached(kNumSeqs, 0);
  const auto sequence = [&](int s, const std::vector<int32_t>& tokens) {
    models::SequenceInput seq;
    for (int32_t t : tokens) {
      const int32_t p = num_cached[static_cast<size_t>(s)]++;
      seq.token_ids.push_back(t);
      seq.positions.push_back(p);
      seq.slot_mapping.push_back(int64_t{s} * kBlocksPerSeq * 16 + p);
    }
    for (int b = 0; b < kBlocksPerSeq; ++b) seq.block_table.push_back(s * kBlocksPerSeq + b);
    return seq;
  };
  models::ForwardBatch prefill;
  for (int s = 0; s < kNumSeqs; ++s) {
    std::vector<int32_t> prompt;
    for (int i = 0; i < 5 + 9 * s; ++i) prompt.push_back((i * 37 + 11 * s + 5) % 512);
    prefill.sequences.push_back(sequence(s, prompt));
  }
  std::vector<float> logits = executor.forward(prefill);  // [kNumSeqs, vocab]
  for (int s = 0; s < kNumSeqs; ++s) {
    last_token[static_cast<size_t>(s)] = kernels::argmax(logits.data() + s * vocab, vocab);
  }
  GreedyRun run;
  const int batch_sizes[] = {1, 3, 8, 5, 2};
  for (int step = 0; step < 40; ++step) {
    const int n = batch_sizes[step % 5];
    models::ForwardBatch decode;
    for (int s = 0; s < n; ++s) {
      decode.sequences.push_back(sequence(s, {last_token[static_cast<size_t>(s)]}));
    }
    logits = executor.forward(decode);  // [n, vocab]
    EXPECT_EQ(logits.size(), static_cast<size_t>(n * vocab));
    run.logits.insert(run.logits.end(), logits.begin(), logits.end());
    for (int s = 0; s < n; ++s) {
      last_token[static_cast<size_t>(s)] = kernels::argmax(logits.data() + s * vocab, vocab);
      run.tokens.push_back(last_token[static_cast<size_t>(s)]);
    }
  }
  return run;
}

TEST(CudaEngineGraphs, DecodeWithGraphsEqualsEagerDecode) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  const GreedyRun eager = greedy_run(1, false);
  const GreedyRun graphed = greedy_run(1, true);
  EXPECT_EQ(graphed.tokens, eager.tokens);
  EXPECT_LT(scaled_max_error(graphed.logits, eager.logits), 1e-5);
  EXPECT_EQ(greedy_run(1, true).logits, graphed.logits) << "replays are reproducible";
}

TEST(CudaEngineGraphs, TwoGpusCaptureTheirOwnGraphs) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  if (cuda_device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  const GreedyRun eager = greedy_run(2, false);
  const GreedyRun graphed = greedy_run(2, true);
  EXPECT_EQ(graphed.tokens, eager.tokens);
  EXPECT_LT(scaled_max_error(graphed.logits, eager.logits), 1e-5);
}

}  // namespace
}  // namespace tidal::engine
