// The CUDA backend's fused decode operators against their CPU references
// (kernels/cpu/fused_reference.h) on random non-zero inputs of several shapes, including the
// shapes that take the unfused fallback (fused_dispatch.h). Skips without a CUDA device.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include "kernels/cpu/fused_reference.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/kv_write.h"
#include "kernels/cuda/kv_arena.h"
#include "kernels/numeric/bf16.h"
#include "kernels/rope_frequencies.h"
#include "tests/cuda/cuda_test_util.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels::cuda {
namespace {

using kernels::testing::random_values;
using kernels::testing::relative_error;
using testing::to_device;
using testing::to_host;

std::vector<float> widen_bf16(const std::vector<uint16_t>& bits) {
  std::vector<float> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) values[i] = bf16_to_float(bits[i]);
  return values;
}

// Every cached row of both arenas in fp32, in arena order.
std::vector<float> cached_rows(const KvCacheView& kv) {
  std::vector<float> rows;
  std::vector<float> row(kv.spec.head_dim);
  for (int64_t layer = 0; layer < kv.spec.num_layers; ++layer) {
    for (int64_t slot = 0; slot < kv.spec.num_blocks * kv.spec.block_size; ++slot) {
      for (int64_t which = 0; which < 2; ++which) {
        for (int64_t head = 0; head < kv.spec.num_kv_heads; ++head) {
          reference::read_kv_row(kv, layer, which, slot, head, row.data());
          rows.insert(rows.end(), row.begin(), row.end());
        }
      }
    }
  }
  return rows;
}

class CudaFusedOps : public ::testing::Test {
 protected:
  void SetUp() override {
    TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
    backend_ = std::make_unique<CudaBackend>(0);
  }
  std::unique_ptr<CudaBackend> backend_;
  std::mt19937_64 rng_{606};
};

TEST_F(CudaFusedOps, NormsToBf16MatchTheReference) {
  for (const int64_t dim : {64, 1000, 4096, 9000}) {
    const int64_t rows = 5;
    const auto x = random_values(rng_, rows * dim);
    const auto residual = random_values(rng_, rows * dim);
    const auto weight = random_values(rng_, dim);
    std::vector<uint16_t> expected(rows * dim);
    reference::rms_norm_to_half(x.data(), weight.data(), rows, dim, 1e-5f, WeightFormat::bf16,
                                expected.data());
    auto d_x = to_device(x);
    auto d_w = to_device(weight);
    DeviceBuffer<uint16_t> d_out(rows * dim);
    backend_->rms_norm_half(d_x.data(), d_w.data(), rows, dim, 1e-5f, HalfType::bf16, d_out.data());
    // fp32 norms agree to ~1e-6, so a value may round to the neighbouring bf16.
    EXPECT_LT(relative_error(widen_bf16(to_host(*backend_, d_out)), widen_bf16(expected)), 1e-2)
        << dim;

    std::vector<float> expected_residual = residual;
    reference::add_rms_norm_to_half(expected_residual.data(), x.data(), weight.data(), rows, dim,
                                    1e-5f, WeightFormat::bf16, expected.data());
    auto d_residual = to_device(residual);
    backend_->add_rms_norm_half(d_residual.data(), d_x.data(), d_w.data(), rows, dim, 1e-5f,
                                HalfType::bf16, d_out.data());
    EXPECT_EQ(to_host(*backend_, d_residual), expected_residual) << dim;
    EXPECT_LT(relative_error(widen_bf16(to_host(*backend_, d_out)), widen_bf16(expected)), 1e-2)
        << dim;
  }
}

// head_dim 600 is above kRopeKvMaxHeadDim: the unfused fallback (copies, rope, write_kv).
TEST_F(CudaFusedOps, RopeWriteKvMatchesTheReferenceForEveryKvDtype) {
  for (const KvDType dtype : {KvDType::f32, KvDType::bf16, KvDType::int8}) {
    for (const QkvLayout layout : {QkvLayout{32, 8, 128}, QkvLayout{8, 8, 64}, QkvLayout{6, 2, 80},
                                   QkvLayout{4, 1, 256}, QkvLayout{2, 1, 600}}) {
      const int64_t tokens = 7;
      const KvCacheSpec spec{2, 4, 4, layout.num_kv_heads, layout.head_dim, dtype};
      const auto qkv = random_values(rng_, tokens * layout.row_stride());
      std::vector<int32_t> positions(tokens);
      for (auto& p : positions) p = static_cast<int32_t>(rng_() % 32768);
      const std::vector<int64_t> slots = {0, 5, -1, 7, 12, 15, 2};
      const auto inv_freq = rope_inv_freq(layout.head_dim, 500000.0, std::nullopt);
      KvArena host_arena(spec);
      std::vector<float> expected_q(tokens * layout.num_heads * layout.head_dim);
      reference::rope_write_kv(qkv.data(), layout, positions.data(), tokens, inv_freq.data(),
                               host_arena.view(), 1, slots.data(), expected_q.data());

      CudaKvArena device_arena(spec);
      auto d_qkv = to_device(qkv);
      auto d_positions = to_device(positions);
      auto d_slots = to_device(slots);
      auto d_inv_freq = to_device(inv_freq);
      DeviceBuffer<float> d_q(expected_q.size());
      backend_->rope_write_kv(d_qkv.data(), tokens, layout, d_positions.data(), d_inv_freq.data(),
                              device_arena.view(), 1, d_slots.data(), d_q.data());
      backend_->synchronize();
      EXPECT_LT(relative_error(d_q.to_host(), expected_q), 1e-4)
          << kv_dtype_name(dtype) << " head_dim " << layout.head_dim;
      std::vector<std::byte> bytes(device_arena.bytes());
      TIDAL_CUDA_CHECK(
          cudaMemcpy(bytes.data(), device_arena.view().data, bytes.size(), cudaMemcpyDeviceToHost));
      KvArena copied(spec);
      std::memcpy(copied.view().data, bytes.data(), bytes.size());
      // cosf / sinf differ from libm by a few ulps; int8 codes then move by at most one step.
      const double tolerance = dtype == KvDType::int8   ? 1.5e-2
                               : dtype == KvDType::bf16 ? 1e-2
                                                        : 1e-4;
      EXPECT_LT(relative_error(cached_rows(copied.view()), cached_rows(host_arena.view())),
                tolerance)
          << kv_dtype_name(dtype) << " head_dim " << layout.head_dim;
    }
  }
}

TEST_F(CudaFusedOps, LinearFromHalfMatchesTheReferenceOnBothPaths) {
  for (const int64_t tokens : {1, 3, 16, 40}) {
    const int64_t rows = 264, cols = 512;
    const auto w = random_values(rng_, rows * cols);
    const LinearWeight weight = convert_to_half(w.data(), rows, cols, WeightFormat::bf16);
    std::vector<uint16_t> x(tokens * cols);
    const auto x_values = random_values(rng_, tokens * cols);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float_to_bf16(x_values[i]);
    std::vector<float> expected(tokens * rows);
    reference::linear_from_half(x.data(), WeightFormat::bf16, tokens, weight.view(),
                                expected.data());
    auto d_w = to_device(weight.half_bits);
    auto d_x = to_device(x);
    DeviceBuffer<float> d_y(tokens * rows);
    for (const int variant : {1, 2}) {
      backend_->set_half_variant(variant);
      backend_->linear_from_half(d_x.data(), tokens, {HalfType::bf16, rows, cols, d_w.data()},
                                 d_y.data());
      EXPECT_LT(relative_error(to_host(*backend_, d_y), expected), 1e-5)
          << "tokens " << tokens << " variant " << variant;
    }
    backend_->set_half_variant(0);
  }
}

TEST_F(CudaFusedOps, GateUpSwigluHalfMatchesTheReferenceOnBothPaths) {
  for (const int64_t tokens : {1, 2, 9, 16, 33}) {
    const int64_t intermediate = 136, cols = 256;
    const auto g = random_values(rng_, intermediate * cols);
    const auto u = random_values(rng_, intermediate * cols);
    const LinearWeight gate_up =
        interleave_gate_up(convert_to_half(g.data(), intermediate, cols, WeightFormat::bf16),
                           convert_to_half(u.data(), intermediate, cols, WeightFormat::bf16));
    const auto x_values = random_values(rng_, tokens * cols);
    std::vector<uint16_t> x(tokens * cols);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float_to_bf16(x_values[i]);
    std::vector<float> pairs(tokens * 2 * intermediate);
    reference::linear_from_half(x.data(), WeightFormat::bf16, tokens, gate_up.view(), pairs.data());
    std::vector<uint16_t> expected(tokens * intermediate);
    reference::swiglu_pairs_to_half(pairs.data(), tokens, intermediate, WeightFormat::bf16,
                                    expected.data());
    auto d_w = to_device(gate_up.half_bits);
    auto d_x = to_device(x);
    DeviceBuffer<uint16_t> d_out(tokens * intermediate);
    for (const int variant : {0, 1, 2}) {
      backend_->set_gate_up_variant(variant);
      backend_->gate_up_swiglu_half(
          d_x.data(), tokens, {HalfType::bf16, 2 * intermediate, cols, d_w.data()}, d_out.data());
      EXPECT_LT(relative_error(widen_bf16(to_host(*backend_, d_out)), widen_bf16(expected)), 1e-2)
          << "tokens " << tokens << " variant " << variant;
    }
    backend_->set_gate_up_variant(0);
  }
}

TEST_F(CudaFusedOps, GateUpSwigluFp32MatchesTheReferenceForInt8Weights) {
  const int64_t tokens = 4, intermediate = 96, cols = 128;
  const auto g = random_values(rng_, intermediate * cols);
  const auto u = random_values(rng_, intermediate * cols);
  const LinearWeight gate_up = interleave_gate_up(quantize_int8(g.data(), intermediate, cols, 0),
                                                  quantize_int8(u.data(), intermediate, cols, 0));
  const auto x = random_values(rng_, tokens * cols);
  std::vector<float> pairs(tokens * 2 * intermediate);
  reference::linear(x.data(), tokens, gate_up.view(), pairs.data());
  std::vector<float> expected(tokens * intermediate);
  reference::swiglu_pairs(pairs.data(), tokens, intermediate, expected.data());
  auto d_codes = to_device(gate_up.int8_codes);
  auto d_scales = to_device(gate_up.scales);
  auto d_x = to_device(x);
  DeviceBuffer<float> d_out(tokens * intermediate);
  LinearView view = gate_up.view();
  view.data = d_codes.data();
  view.scales = d_scales.data();
  backend_->gate_up_swiglu(d_x.data(), tokens, view, d_out.data());
  EXPECT_LT(relative_error(to_host(*backend_, d_out), expected), 1e-5);
}

}  // namespace
}  // namespace tidal::kernels::cuda
