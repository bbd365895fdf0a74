// The paged KV cache: ONE allocation split into blocks of block_size token slots; a block id
// indexes the same block in every layer. slot = block_id * block_size + offset_in_block.
//
// Layout of the arena (elements of the KV dtype):
//   data   [num_layers, num_blocks, 2 (0 = k, 1 = v), block_size, num_kv_heads, head_dim]
// and, for int8 only, right after the data (64-byte aligned), one float scale per
// (token, head): x ~= code * scale with scale = max|x over head_dim| / 127:
//   scales [num_layers, num_blocks, 2 (k, v), block_size, num_kv_heads]
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace tidal::kernels {

enum class KvDType : uint8_t { f32, bf16, int8 };

const char* kv_dtype_name(KvDType dtype);
size_t kv_element_bytes(KvDType dtype);  // 4, 2, 1

struct KvCacheSpec {
  int64_t num_layers = 0;
  int64_t num_blocks = 0;
  int64_t block_size = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  KvDType dtype = KvDType::f32;

  // num_layers * 2 * num_kv_heads * head_dim * element bytes (the catalog formula).
  size_t data_bytes_per_token() const;
  // int8 only: num_layers * 2 * num_kv_heads * sizeof(float); 0 otherwise.
  size_t scale_bytes_per_token() const;
  size_t data_bytes() const;   // num_blocks * block_size * data_bytes_per_token()
  size_t scale_bytes() const;  // num_blocks * block_size * scale_bytes_per_token()
  size_t total_bytes() const;  // data (padded to 64 bytes) + scales
};

// Where the arena lives; the backend that owns the memory hands this out.
struct KvCacheView {
  KvCacheSpec spec;
  void* data = nullptr;     // [num_layers, num_blocks, 2, block_size, num_kv_heads, head_dim]
  float* scales = nullptr;  // [num_layers, num_blocks, 2, block_size, num_kv_heads]; int8 only

  // Index (in elements) of the first element of head `head` of token `slot` for k (kv = 0) or
  // v (kv = 1) in `layer`; the scale of that row is scales[row_index(...) / head_dim].
  int64_t row_index(int64_t layer, int64_t kv, int64_t slot, int64_t head) const {
    const int64_t block = slot / spec.block_size;
    const int64_t offset = slot % spec.block_size;
    return ((((layer * spec.num_blocks + block) * 2 + kv) * spec.block_size + offset) *
                spec.num_kv_heads +
            head) *
           spec.head_dim;
  }
};

// Host memory for a KV arena, 64-byte aligned and zero-filled.
class KvArena {
 public:
  explicit KvArena(const KvCacheSpec& spec);  // std::invalid_argument on a non-positive dim
  const KvCacheSpec& spec() const { return spec_; }
  KvCacheView view() const;
  size_t bytes() const { return spec_.total_bytes(); }

 private:
  struct FreeAligned {
    void operator()(std::byte* p) const;
  };
  KvCacheSpec spec_;
  std::unique_ptr<std::byte, FreeAligned> storage_;
};

}  // namespace tidal::kernels
