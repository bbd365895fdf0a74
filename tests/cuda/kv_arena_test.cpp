// KV arena sizing from free memory (pure arithmetic, runs without a device) and a device arena
// whose view has the layout of kernels/kv_cache.h.
#include <gtest/gtest.h>

#include "kernels/cuda/kv_arena.h"
#include "tests/cuda/cuda_test_util.h"

namespace tidal::kernels::cuda {
namespace {

constexpr size_t kGiB = size_t{1} << 30;

TEST(KvArenaBudget, UtilizationShareMinusUsedMinusReserve) {
  // 80 GiB device, 20 GiB in use (weights), 90%: 72 - 20 - 2 = 50 GiB for the arena.
  const KvMemoryBudget budget{80 * kGiB, 60 * kGiB, 0.9, 2 * kGiB};
  EXPECT_EQ(kv_budget_bytes(budget), static_cast<size_t>(0.9 * 80.0 * kGiB) - 22 * kGiB);
  EXPECT_EQ(kv_budget_bytes(KvMemoryBudget{80 * kGiB, 5 * kGiB, 0.9, 0}), 0u);
  EXPECT_THROW(kv_budget_bytes(KvMemoryBudget{80 * kGiB, 60 * kGiB, 1.5, 0}),
               std::invalid_argument);
  EXPECT_THROW(kv_budget_bytes(KvMemoryBudget{80 * kGiB, 60 * kGiB, 0.0, 0}),
               std::invalid_argument);
}

TEST(KvArenaBudget, BlocksThatFitNeverExceedTheBudget) {
  // Llama-3-8B: 32 layers, 8 kv heads, head_dim 128, bf16: 128 KiB per token, 2 MiB per block.
  const KvCacheSpec shape{32, 0, 16, 8, 128, KvDType::bf16};
  EXPECT_EQ(kv_blocks_that_fit(shape, 50 * kGiB), 25600);
  EXPECT_EQ(kv_blocks_that_fit(shape, (size_t{2} << 20) - 1), 0);
  const KvCacheSpec int8_shape{32, 0, 16, 8, 128, KvDType::int8};
  for (const size_t budget : {size_t{123456789}, 7 * kGiB + 12345}) {
    KvCacheSpec spec = int8_shape;
    spec.num_blocks = kv_blocks_that_fit(int8_shape, budget);
    EXPECT_LE(spec.total_bytes(), budget);
    ++spec.num_blocks;
    EXPECT_GT(spec.total_bytes(), budget);
  }
  EXPECT_THROW(kv_blocks_that_fit(KvCacheSpec{0, 0, 16, 8, 128, KvDType::f32}, kGiB),
               std::invalid_argument);
}

TEST(CudaKvArena, SizedFromFreeMemoryAndZeroFilled) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  const KvCacheSpec shape{4, 0, 16, 2, 64, KvDType::int8};
  // A small share of memory keeps the test light whatever the device.
  const KvMemoryBudget measured = measure_kv_budget(0.9, 0);
  const double share = 1.0 - static_cast<double>(measured.free_bytes - (size_t{64} << 20)) /
                                 static_cast<double>(measured.total_bytes);
  CudaKvArena arena = CudaKvArena::sized_from_free_memory(shape, std::min(share, 1.0), 0);
  EXPECT_GT(arena.spec().num_blocks, 0);
  EXPECT_LE(arena.bytes(), size_t{64} << 20);
  const KvCacheView view = arena.view();
  ASSERT_NE(view.scales, nullptr);
  std::vector<std::byte> bytes(arena.bytes());
  TIDAL_CUDA_CHECK(cudaMemcpy(bytes.data(), view.data, bytes.size(), cudaMemcpyDeviceToHost));
  for (const std::byte b : bytes) ASSERT_EQ(b, std::byte{0});
}

}  // namespace
}  // namespace tidal::kernels::cuda
