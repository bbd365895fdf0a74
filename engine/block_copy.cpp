#include "engine/block_copy.h"

#include <cstddef>
#include <stdexcept>
#include <string>

namespace tidal::engine {

void copy_kv_blocks(const kernels::KvCacheView& src, const kernels::KvCacheView& dst,
                    std::span<const kv::BlockCopy> copies) {
  copy_kv_blocks(src, dst, copies, kernels::host_memory());
}

void copy_kv_blocks(const kernels::KvCacheView& src, const kernels::KvCacheView& dst,
                    std::span<const kv::BlockCopy> copies, kernels::BackendMemory& memory) {
  const kernels::KvCacheSpec& s = src.spec;
  const kernels::KvCacheSpec& d = dst.spec;
  if (s.num_layers != d.num_layers || s.block_size != d.block_size ||
      s.num_kv_heads != d.num_kv_heads || s.head_dim != d.head_dim || s.dtype != d.dtype) {
    throw std::invalid_argument("copy_kv_blocks: arenas of different shapes");
  }
  const size_t element_bytes = kernels::kv_element_bytes(s.dtype);
  // One (layer, k|v) slice of a block: [block_size, num_kv_heads, head_dim]
  const int64_t slice_elements = s.block_size * s.num_kv_heads * s.head_dim;
  const int64_t slice_scales = s.block_size * s.num_kv_heads;  // int8 only
  auto* src_data = static_cast<const std::byte*>(src.data);
  auto* dst_data = static_cast<std::byte*>(dst.data);
  for (const kv::BlockCopy& copy : copies) {
    if (copy.src_block < 0 || copy.src_block >= s.num_blocks || copy.dst_block < 0 ||
        copy.dst_block >= d.num_blocks) {
      throw std::invalid_argument("copy_kv_blocks: block " + std::to_string(copy.src_block) +
                                  " -> " + std::to_string(copy.dst_block) + " out of range");
    }
    for (int64_t layer = 0; layer < s.num_layers; ++layer) {
      for (int64_t kv = 0; kv < 2; ++kv) {
        const int64_t src_row = src.row_index(layer, kv, copy.src_block * s.block_size, 0);
        const int64_t dst_row = dst.row_index(layer, kv, copy.dst_block * d.block_size, 0);
        memory.copy(dst_data + static_cast<size_t>(dst_row) * element_bytes,
                    src_data + static_cast<size_t>(src_row) * element_bytes,
                    static_cast<size_t>(slice_elements) * element_bytes);
        if (s.dtype == kernels::KvDType::int8) {
          memory.copy(dst.scales + dst_row / d.head_dim, src.scales + src_row / s.head_dim,
                      static_cast<size_t>(slice_scales) * sizeof(float));
        }
      }
    }
  }
}

}  // namespace tidal::engine
