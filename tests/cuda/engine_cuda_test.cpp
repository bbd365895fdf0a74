// The engine on the CUDA backend against the CPU engine: the executor's logits (fp32 weights and
// KV within 1e-4 of the largest logit, int8 weights within 1e-3, bf16 / fp16 within 1e-2), greedy
// tokens of whole engine runs (fp32: equal), a KV arena sized from free memory, NCCL tensor
// parallelism (two GPUs), and the options the CUDA engine refuses. Every test skips itself without
// a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "base/input_error.h"
#include "engine/cuda_ranks.h"
#include "engine/engine.h"
#include "engine/tensor_parallel_executor.h"
#include "tests/cuda/cuda_test_util.h"
#include "tests/engine/engine_test_support.h"

namespace tidal::engine {
namespace {

using kernels::cuda::testing::scaled_max_error;
using testing::make_request;
using testing::run_to_completion;
using testing::small_config;
using testing::tp4_config;

// A 20-token prefill, then a decode step of the same sequence, straight through the executor:
// [20 + 1 rows, vocab].
std::vector<float> executor_logits(BackendKind backend, int tp, const models::QuantSpec& quant) {
  ExecutorConfig config;
  config.backend = backend;
  config.tp = tp;
  config.quant = quant;
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
  std::vector<float> logits = executor.forward(batch);
  models::SequenceInput next;
  next.token_ids = {77};
  next.positions = {20};
  next.slot_mapping = {16 + 20};
  next.block_table = {1, 2};
  batch.sequences = {next};
  batch.num_logit_rows.clear();  // the last row
  const std::vector<float> decode = executor.forward(batch);
  logits.insert(logits.end(), decode.begin(), decode.end());
  return logits;
}

TEST(CudaEngine, ExecutorLogitsMatchTheCpuBackend) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  const models::QuantSpec f32;
  const std::vector<float> cpu = executor_logits(BackendKind::cpu, 1, f32);
  const std::vector<float> cuda = executor_logits(BackendKind::cuda, 1, f32);
  ASSERT_EQ(cpu.size(), 21u * 512u);
  EXPECT_LT(scaled_max_error(cuda, cpu), 1e-4);
  EXPECT_EQ(cuda, executor_logits(BackendKind::cuda, 1, f32)) << "reproducible on the GPU";
}

TEST(CudaEngine, Int8WeightLogitsMatchTheCpuBackend) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  const models::QuantSpec int8{kernels::WeightFormat::int8, 32};
  EXPECT_LT(scaled_max_error(executor_logits(BackendKind::cuda, 1, int8),
                             executor_logits(BackendKind::cpu, 1, int8)),
            1e-3);
}

// bf16 / fp16 weights: the CPU widens them and computes in fp32; the CUDA backend rounds the
// activations to the weight type before its cuBLAS GEMMs, hence 1e-2.
TEST(CudaEngine, HalfWeightLogitsMatchTheCpuBackend) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  for (kernels::WeightFormat format : {kernels::WeightFormat::bf16, kernels::WeightFormat::fp16}) {
    const models::QuantSpec half{format, 0};
    EXPECT_LT(scaled_max_error(executor_logits(BackendKind::cuda, 1, half),
                               executor_logits(BackendKind::cpu, 1, half)),
              1e-2)
        << kernels::weight_format_name(format);
  }
}

TEST(CudaEngine, TwoGpusOverNcclMatchOneGpu) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  if (cuda_device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  const models::QuantSpec f32;
  EXPECT_LT(scaled_max_error(executor_logits(BackendKind::cuda, 2, f32),
                             executor_logits(BackendKind::cuda, 1, f32)),
            1e-5);
}

TEST(CudaEngine, GreedyTokensEqualTheCpuEngine) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<Request> requests{make_request(0, 33, 16), make_request(1, 7, 12),
                                      make_request(2, 58, 8), make_request(3, 1, 5)};
  EngineConfig config = small_config();  // fp32 weights and KV, 128 blocks
  Engine cpu(models::random_weights(tp4_config(), 21), config);
  testing::FakeClock cpu_clock;
  const auto expected = run_to_completion(cpu, requests, cpu_clock);
  config.backend = BackendKind::cuda;
  Engine cuda(models::random_weights(tp4_config(), 21), config);
  testing::FakeClock cuda_clock;
  EXPECT_EQ(run_to_completion(cuda, requests, cuda_clock), expected);
  EXPECT_EQ(cuda.memory().num_gpu_blocks, 128);
}

TEST(CudaEngine, ArenaSizedFromFreeMemoryIsCappedByTheSchedulerLimits) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  EngineConfig config = small_config();
  config.backend = BackendKind::cuda;
  config.num_gpu_blocks = 0;  // from gpu_memory_utilization
  config.gpu_memory_utilization = 0.5;
  config.scheduler.max_num_seqs = 8;
  config.scheduler.max_model_len = 256;
  Engine engine(models::random_weights(tp4_config(), 21), config);
  // 8 sequences of 256 tokens in 16-token blocks; the GPU has room for far more.
  EXPECT_EQ(engine.memory().num_gpu_blocks, 8 * 256 / 16);
  EXPECT_EQ(engine.block_manager().config().num_gpu_blocks, 8 * 256 / 16);
  testing::FakeClock clock;
  const auto outputs = run_to_completion(engine, {make_request(0, 20, 4)}, clock);
  EXPECT_EQ(outputs.at(0).size(), 4u);
}

TEST(CudaEngine, RefusesWhatTheCudaEngineCannotDo) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  EngineConfig config = small_config();
  config.backend = BackendKind::cuda;
  config.num_cpu_blocks = 16;
  EXPECT_THROW(validate(config, tp4_config()), InputError);  // swap
  config.num_cpu_blocks = 0;
  config.tp = cuda_device_count() + 1;
  EXPECT_THROW(validate(config, tp4_config()), InputError);  // more ranks than GPUs
  config.tp = 1;
  config.spec = parse_spec_config("draft:1:2", "--spec");
  EXPECT_THROW(validate(config, tp4_config()), InputError);  // the draft model is CPU-only
}

}  // namespace
}  // namespace tidal::engine
