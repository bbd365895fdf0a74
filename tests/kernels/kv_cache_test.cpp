// KV arena: layout (row_index), byte counts per the catalog formula, KV write by slot mapping in
// every dtype with padding skipped, and the per-dtype round-trip error.
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "kernels/cpu/kv_write.h"
#include "kernels/kv_cache.h"
#include "kernels/numeric/bf16.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

KvCacheSpec small_spec(KvDType dtype) {
  KvCacheSpec spec;
  spec.num_layers = 3;
  spec.num_blocks = 5;
  spec.block_size = 4;
  spec.num_kv_heads = 2;
  spec.head_dim = 8;
  spec.dtype = dtype;
  return spec;
}

TEST(KvCache, BytesFollowTheFormula) {
  for (KvDType dtype : {KvDType::f32, KvDType::bf16, KvDType::int8}) {
    const KvCacheSpec spec = small_spec(dtype);
    EXPECT_EQ(spec.data_bytes_per_token(), 3u * 2 * 2 * 8 * kv_element_bytes(dtype));
    EXPECT_EQ(spec.scale_bytes_per_token(), dtype == KvDType::int8 ? 3u * 2 * 2 * 4 : 0u);
    EXPECT_EQ(spec.data_bytes(), 20 * spec.data_bytes_per_token());
    const KvArena arena(spec);
    EXPECT_GE(arena.bytes(), spec.data_bytes() + spec.scale_bytes());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(arena.view().data) % 64, 0u);
    EXPECT_EQ(arena.view().scales != nullptr, dtype == KvDType::int8);
  }
  EXPECT_THROW(KvArena(KvCacheSpec{}), std::invalid_argument);
}

TEST(KvCache, RowIndexFollowsTheDocumentedLayout) {
  const KvCacheView view = KvArena(small_spec(KvDType::f32)).view();
  // [num_layers, num_blocks, 2, block_size, num_kv_heads, head_dim]
  EXPECT_EQ(view.row_index(0, 0, 0, 0), 0);
  EXPECT_EQ(view.row_index(0, 0, 0, 1), 8);
  EXPECT_EQ(view.row_index(0, 0, 1, 0), 2 * 8);
  EXPECT_EQ(view.row_index(0, 1, 0, 0), 4 * 2 * 8);
  EXPECT_EQ(view.row_index(0, 0, 4, 0), 2 * 4 * 2 * 8);      // block 1
  EXPECT_EQ(view.row_index(1, 0, 0, 0), 5 * 2 * 4 * 2 * 8);  // layer 1
  EXPECT_EQ(view.row_index(2, 1, 19, 1), (((2 * 5 + 4) * 2 + 1) * 4 + 3) * 2 * 8 + 8);
}

TEST(KvWrite, OptimizedEqualsReferenceAndSkipsPadding) {
  std::mt19937_64 rng(81);
  ThreadPool pool(3);
  for (KvDType dtype : {KvDType::f32, KvDType::bf16, KvDType::int8}) {
    const KvCacheSpec spec = small_spec(dtype);
    KvArena expected_arena(spec);
    KvArena actual_arena(spec);
    const int64_t num_tokens = 9;
    const int64_t row = spec.num_kv_heads * spec.head_dim;
    const std::vector<float> k = testing::random_values(rng, num_tokens * row, 2.0f);
    const std::vector<float> v = testing::random_values(rng, num_tokens * row, 2.0f);
    const std::vector<int64_t> slots = {3, 17, -1, 0, 8, 9, -1, 19, 4};
    reference::write_kv(expected_arena.view(), 1, k.data(), v.data(), slots.data(), num_tokens);
    cpu::write_kv(pool, actual_arena.view(), 1, k.data(), v.data(), slots.data(), num_tokens);
    EXPECT_EQ(std::memcmp(expected_arena.view().data, actual_arena.view().data, spec.total_bytes()),
              0);
    // Read back: exact for f32, bf16 rounding for bf16, half a step of the row scale for int8.
    std::vector<float> back(spec.head_dim);
    for (int64_t t = 0; t < num_tokens; ++t) {
      for (int64_t h = 0; h < spec.num_kv_heads; ++h) {
        for (int64_t which = 0; which < 2; ++which) {
          if (slots[t] < 0) continue;
          reference::read_kv_row(actual_arena.view(), 1, which, slots[t], h, back.data());
          const float* original = (which == 0 ? k.data() : v.data()) + t * row + h * spec.head_dim;
          float absmax = 0.0f;
          for (int64_t i = 0; i < spec.head_dim; ++i)
            absmax = std::max(absmax, std::fabs(original[i]));
          for (int64_t i = 0; i < spec.head_dim; ++i) {
            switch (dtype) {
              case KvDType::f32:
                EXPECT_EQ(back[i], original[i]);
                break;
              case KvDType::bf16:
                EXPECT_EQ(back[i], round_to_bf16(original[i]));
                break;
              case KvDType::int8:
                EXPECT_LE(std::fabs(back[i] - original[i]), absmax / 127.0f * 0.5001f);
                break;
            }
          }
        }
      }
    }
    // Layer 0 and the padded tokens left nothing behind: slot 1 is untouched everywhere.
    reference::read_kv_row(actual_arena.view(), 0, 0, 3, 0, back.data());
    EXPECT_EQ(back[0], 0.0f);
    reference::read_kv_row(actual_arena.view(), 1, 0, 1, 0, back.data());
    EXPECT_EQ(back[0], 0.0f);
  }
}

}  // namespace
}  // namespace tidal::kernels
