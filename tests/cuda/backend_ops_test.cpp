// Elementwise, normalization, RoPE, embedding, softmax, MoE routing and row gather/scatter on
// the CUDA backend against the CPU reference backend.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/softmax.h"
#include "kernels/rope_frequencies.h"
#include "tests/cuda/cuda_test_util.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels::cuda {
namespace {

using kernels::testing::random_values;
using kernels::testing::relative_error;
using testing::to_device;
using testing::to_host;

class CudaBackendOps : public ::testing::Test {
 protected:
  void SetUp() override {
    TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
    backend_ = std::make_unique<CudaBackend>(0);
  }
  std::unique_ptr<CudaBackend> backend_;
  cpu::ReferenceBackend reference_;
  std::mt19937_64 rng_{20240611};
};

TEST_F(CudaBackendOps, EmbeddingCopiesRowsExactly) {
  const int64_t vocab = 97, hidden = 300, num_tokens = 13;
  const auto table = random_values(rng_, vocab * hidden);
  std::vector<int32_t> ids(num_tokens);
  for (auto& id : ids) id = static_cast<int32_t>(rng_() % vocab);
  std::vector<float> expected(num_tokens * hidden);
  reference_.embedding(table.data(), hidden, ids.data(), num_tokens, expected.data());
  auto d_table = to_device(table);
  auto d_ids = to_device(ids);
  DeviceBuffer<float> d_out(num_tokens * hidden);
  backend_->embedding(d_table.data(), hidden, d_ids.data(), num_tokens, d_out.data());
  EXPECT_EQ(to_host(*backend_, d_out), expected);
}

TEST_F(CudaBackendOps, RmsNormAndFusedAddMatchReference) {
  for (const int64_t dim : {64, 1000, 4096}) {
    const int64_t rows = 7;
    const auto x = random_values(rng_, rows * dim);
    const auto residual = random_values(rng_, rows * dim);
    const auto weight = random_values(rng_, dim);
    std::vector<float> expected(rows * dim);
    reference_.rms_norm(x.data(), weight.data(), rows, dim, 1e-5f, expected.data());
    auto d_x = to_device(x);
    auto d_w = to_device(weight);
    DeviceBuffer<float> d_out(rows * dim);
    backend_->rms_norm(d_x.data(), d_w.data(), rows, dim, 1e-5f, d_out.data());
    EXPECT_LT(relative_error(to_host(*backend_, d_out), expected), 1e-5) << dim;

    std::vector<float> expected_residual = residual;
    reference_.add_rms_norm(expected_residual.data(), x.data(), weight.data(), rows, dim, 1e-5f,
                            expected.data());
    auto d_residual = to_device(residual);
    backend_->add_rms_norm(d_residual.data(), d_x.data(), d_w.data(), rows, dim, 1e-5f,
                           d_out.data());
    EXPECT_EQ(to_host(*backend_, d_residual), expected_residual) << dim;
    EXPECT_LT(relative_error(to_host(*backend_, d_out), expected), 1e-5) << dim;
  }
}

TEST_F(CudaBackendOps, RopeMatchesReferenceAtLargePositions) {
  const int64_t num_tokens = 9, num_heads = 8, num_kv_heads = 2, head_dim = 128;
  auto q = random_values(rng_, num_tokens * num_heads * head_dim);
  auto k = random_values(rng_, num_tokens * num_kv_heads * head_dim);
  std::vector<int32_t> positions(num_tokens);
  for (auto& p : positions) p = static_cast<int32_t>(rng_() % 32768);
  const std::vector<float> inv_freq = rope_inv_freq(head_dim, 500000.0, std::nullopt);
  auto d_q = to_device(q);
  auto d_k = to_device(k);
  auto d_pos = to_device(positions);
  auto d_freq = to_device(inv_freq);
  backend_->rope(d_q.data(), d_k.data(), d_pos.data(), num_tokens, num_heads, num_kv_heads,
                 head_dim, d_freq.data());
  reference_.rope(q.data(), k.data(), positions.data(), num_tokens, num_heads, num_kv_heads,
                  head_dim, inv_freq.data());
  // cosf/sinf of angles up to ~3e4 rad differ from libm by a few ulps of the angle's size.
  EXPECT_LT(relative_error(to_host(*backend_, d_q), q), 1e-4);
  EXPECT_LT(relative_error(to_host(*backend_, d_k), k), 1e-4);
}

TEST_F(CudaBackendOps, SwigluAddSoftmaxMatchReference) {
  const int64_t count = 100003;
  const auto gate = random_values(rng_, count, 4.0f);
  const auto up = random_values(rng_, count);
  std::vector<float> expected(count);
  reference_.swiglu(gate.data(), up.data(), count, expected.data());
  auto d_gate = to_device(gate);
  auto d_up = to_device(up);
  DeviceBuffer<float> d_out(count);
  backend_->swiglu(d_gate.data(), d_up.data(), count, d_out.data());
  EXPECT_LT(relative_error(to_host(*backend_, d_out), expected), 1e-6);

  std::vector<float> sum = gate;
  reference_.add(sum.data(), up.data(), count);
  backend_->add(d_gate.data(), d_up.data(), count);
  EXPECT_EQ(to_host(*backend_, d_gate), sum);

  // Against a softmax in double: the reference's running fp32 sum over 32,000 terms carries up to
  // n * 2^-24 of relative error, and on an H200 the kernel differed from it by 3.1e-5.
  const int64_t rows = 5, cols = 32000;
  const auto logits = random_values(rng_, rows * cols, 8.0f);
  auto d_logits = to_device(logits);
  backend_->softmax(d_logits.data(), rows, cols);
  std::vector<float> exact(logits.size());
  reference::softmax_in_double(logits.data(), rows, cols, exact.data());
  EXPECT_LT(relative_error(to_host(*backend_, d_logits), exact), 1e-5);
}

TEST_F(CudaBackendOps, MoeRouteMatchesReferenceIncludingTies) {
  const int64_t num_tokens = 33, num_experts = 8, top_k = 2;
  auto logits = random_values(rng_, num_tokens * num_experts);
  logits[3] = logits[5];  // a tie: the lower expert id goes first
  std::vector<int32_t> ids(num_tokens * top_k);
  std::vector<float> weights(num_tokens * top_k);
  reference_.moe_route(logits.data(), num_tokens, num_experts, top_k, ids.data(), weights.data());
  auto d_logits = to_device(logits);
  DeviceBuffer<int32_t> d_ids(ids.size());
  DeviceBuffer<float> d_weights(weights.size());
  backend_->moe_route(d_logits.data(), num_tokens, num_experts, top_k, d_ids.data(),
                      d_weights.data());
  EXPECT_EQ(to_host(*backend_, d_ids), ids);
  EXPECT_LT(relative_error(to_host(*backend_, d_weights), weights), 1e-6);
}

TEST_F(CudaBackendOps, GatherAndScatterAddRowsMatchReference) {
  const int64_t src_rows = 20, dim = 257, num_rows = 12;
  const auto src = random_values(rng_, src_rows * dim);
  std::vector<int32_t> rows(num_rows);
  for (auto& r : rows) r = static_cast<int32_t>(rng_() % src_rows);  // repeats included
  const auto weights = random_values(rng_, num_rows);
  std::vector<float> gathered(num_rows * dim);
  reference_.gather_rows(src.data(), rows.data(), num_rows, dim, gathered.data());
  auto d_src = to_device(src);
  auto d_rows = to_device(rows);
  auto d_weights = to_device(weights);
  DeviceBuffer<float> d_gathered(num_rows * dim);
  backend_->gather_rows(d_src.data(), d_rows.data(), num_rows, dim, d_gathered.data());
  EXPECT_EQ(to_host(*backend_, d_gathered), gathered);

  std::vector<float> dst = src;
  reference_.scatter_add_rows(gathered.data(), rows.data(), weights.data(), num_rows, dim,
                              dst.data());
  backend_->scatter_add_rows(d_gathered.data(), d_rows.data(), d_weights.data(), num_rows, dim,
                             d_src.data());
  EXPECT_LT(relative_error(to_host(*backend_, d_src), dst), 1e-6);
}

}  // namespace
}  // namespace tidal::kernels::cuda
