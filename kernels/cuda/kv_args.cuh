// The KV arena as device code sees it (kernels/kv_cache.h layout): row indexing, loads as fp32
// and stores in the arena dtype. Shared by the KV write, paged attention and the fused RoPE + KV
// write (device code only).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/kv_cache.h"

namespace tidal::kernels::cuda {

// Device copy of what the kernels need from KvCacheView (plain values, passed by value).
struct KvArgs {
  void* data;
  float* scales;
  int64_t num_blocks;
  int64_t block_size;
  int64_t num_kv_heads;
  int64_t head_dim;
  KvDType dtype;

  __device__ int64_t row_index(int64_t layer, int64_t kv, int64_t slot, int64_t head) const {
    const int64_t block = slot / block_size;
    const int64_t offset = slot % block_size;
    return ((((layer * num_blocks + block) * 2 + kv) * block_size + offset) * num_kv_heads + head) *
           head_dim;
  }
  // Element i of the row starting at `index`, as fp32.
  __device__ float load(int64_t index, int64_t i) const {
    switch (dtype) {
      case KvDType::f32:
        return static_cast<const float*>(data)[index + i];
      case KvDType::bf16:
        return __bfloat162float(
            __ushort_as_bfloat16(static_cast<const uint16_t*>(data)[index + i]));
      case KvDType::int8:
        return static_cast<float>(static_cast<const int8_t*>(data)[index + i]) *
               scales[index / head_dim];
    }
    return 0.0f;
  }
  // Stores element i of the row starting at `index` in the arena dtype: bf16 rounded to nearest
  // even (as float_to_bf16); int8 as rintf(value / scale) (half to even, as round_half_even)
  // clamped to +-127, 0 when the row's scale is 0 (the caller writes the scale).
  __device__ void store(int64_t index, int64_t i, float value, float scale) const {
    switch (dtype) {
      case KvDType::f32:
        static_cast<float*>(data)[index + i] = value;
        return;
      case KvDType::bf16:
        static_cast<uint16_t*>(data)[index + i] = __bfloat16_as_ushort(__float2bfloat16_rn(value));
        return;
      case KvDType::int8: {
        const float code = scale == 0.0f ? 0.0f : rintf(value / scale);
        static_cast<int8_t*>(data)[index + i] =
            static_cast<int8_t>(fminf(fmaxf(code, -127.0f), 127.0f));
        return;
      }
    }
  }
};

inline KvArgs kv_args(const KvCacheView& kv) {
  return KvArgs{
      kv.data,          kv.scales,    kv.spec.num_blocks, kv.spec.block_size, kv.spec.num_kv_heads,
      kv.spec.head_dim, kv.spec.dtype};
}

}  // namespace tidal::kernels::cuda
