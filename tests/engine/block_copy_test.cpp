// Whole-block KV copies between arenas (swap out / in, copy-on-write), every layer and the int8
// scales included.
#include <cstring>

#include <gtest/gtest.h>

#include "engine/block_copy.h"

namespace tidal::engine {
namespace {

kernels::KvCacheSpec spec(int64_t num_blocks, kernels::KvDType dtype) {
  kernels::KvCacheSpec s;
  s.num_layers = 3;
  s.num_blocks = num_blocks;
  s.block_size = 4;
  s.num_kv_heads = 2;
  s.head_dim = 8;
  s.dtype = dtype;
  return s;
}

// Fills every byte of the arena (data and scales) with a pattern that depends on its offset.
void fill(const kernels::KvArena& arena) {
  auto* bytes = static_cast<unsigned char*>(arena.view().data);
  for (size_t i = 0; i < arena.bytes(); ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 1);
}

TEST(BlockCopy, MovesEveryLayerOfABlockAndNothingElse) {
  for (kernels::KvDType dtype :
       {kernels::KvDType::f32, kernels::KvDType::bf16, kernels::KvDType::int8}) {
    SCOPED_TRACE(kernels::kv_dtype_name(dtype));
    const kernels::KvArena device(spec(5, dtype));
    const kernels::KvArena host(spec(3, dtype));
    fill(device);
    const std::vector<kv::BlockCopy> out = {{4, 0}, {1, 2}};
    copy_kv_blocks(device.view(), host.view(), out);
    const kernels::KvCacheView d = device.view();
    const kernels::KvCacheView h = host.view();
    const size_t element = kernels::kv_element_bytes(dtype);
    const size_t row_bytes = static_cast<size_t>(d.spec.head_dim) * element;
    for (const kv::BlockCopy& c : out) {
      for (int64_t layer = 0; layer < 3; ++layer) {
        for (int64_t kv = 0; kv < 2; ++kv) {
          for (int64_t offset = 0; offset < 4; ++offset) {
            for (int64_t head = 0; head < 2; ++head) {
              const int64_t src = d.row_index(layer, kv, c.src_block * 4 + offset, head);
              const int64_t dst = h.row_index(layer, kv, c.dst_block * 4 + offset, head);
              EXPECT_EQ(std::memcmp(static_cast<const char*>(d.data) + src * element,
                                    static_cast<const char*>(h.data) + dst * element, row_bytes),
                        0);
              if (dtype == kernels::KvDType::int8) {
                EXPECT_EQ(d.scales[src / 8], h.scales[dst / 8]);
              }
            }
          }
        }
      }
    }
    // Host block 1 was not a destination: still zero.
    const int64_t untouched = h.row_index(2, 1, 1 * 4, 0);
    EXPECT_EQ(static_cast<const unsigned char*>(h.data)[untouched * element], 0);
    // And back: device block 3 <- host block 2 (= device block 1).
    copy_kv_blocks(host.view(), device.view(), std::vector<kv::BlockCopy>{{2, 3}});
    const int64_t a = d.row_index(1, 0, 1 * 4 + 2, 1);
    const int64_t b = d.row_index(1, 0, 3 * 4 + 2, 1);
    EXPECT_EQ(std::memcmp(static_cast<const char*>(d.data) + a * element,
                          static_cast<const char*>(d.data) + b * element, row_bytes),
              0);
  }
}

TEST(BlockCopy, RejectsMismatchedArenasAndBadIds) {
  const kernels::KvArena a(spec(2, kernels::KvDType::f32));
  const kernels::KvArena b(spec(2, kernels::KvDType::bf16));
  EXPECT_THROW(copy_kv_blocks(a.view(), b.view(), std::vector<kv::BlockCopy>{{0, 0}}),
               std::invalid_argument);
  EXPECT_THROW(copy_kv_blocks(a.view(), a.view(), std::vector<kv::BlockCopy>{{0, 2}}),
               std::invalid_argument);
}

}  // namespace
}  // namespace tidal::engine
