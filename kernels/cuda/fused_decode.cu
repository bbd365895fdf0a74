// RoPE fused into the KV write: one kernel reads the stacked q/k/v output of the qkv GEMM,
// rotates q into q_out, rotates k and stores it and v at the token's slot in the arena dtype.
// Spec: reference::rope_write_kv (kernels/cpu/fused_reference.h), i.e. reference::rope then
// reference::write_kv: the same angle float(position) * inv_freq[i] with device cosf / sinf (a
// few ulps from libm at large angles, as launch_rope), the same conversions as launch_write_kv.
//
// Grid (token, num_heads + num_kv_heads): a block per q head, or per kv head doing k and v. Each
// thread holds one rotate-half pair (head_dim / 2 <= 256 threads), so the int8 absmax of the
// rotated k row is one block reduction over registers.
#include <stdexcept>
#include <string>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/fused_dispatch.h"
#include "kernels/cuda/kv_args.cuh"
#include "kernels/cuda/launchers.h"

namespace tidal::kernels::cuda {

namespace {

struct QkvArgs {
  int64_t num_heads;
  int64_t num_kv_heads;
  int64_t head_dim;
  int64_t k_offset;
  int64_t v_offset;
  int64_t row_stride;
};

// Stores one row of head_dim values held as pairs (lo = element i, hi = element i + half) by
// threads i < half, converting to the arena dtype (int8: absmax of the row, then codes).
__device__ void store_pair_row(const KvArgs& kv, int64_t index, bool active, int64_t i,
                               int64_t half, float lo, float hi, float* scratch) {
  float scale = 0.0f;
  if (kv.dtype == KvDType::int8) {
    const float absmax = active ? fmaxf(fabsf(lo), fabsf(hi)) : 0.0f;
    scale = block_max(absmax, scratch) / 127.0f;
    if (threadIdx.x == 0) kv.scales[index / kv.head_dim] = scale;
  }
  if (active) {
    kv.store(index, i, lo, scale);
    kv.store(index, i + half, hi, scale);
  }
}

__global__ void rope_write_kv_kernel(const float* qkv, QkvArgs layout, const int32_t* positions,
                                     const float* inv_freq, KvArgs kv, int64_t layer,
                                     const int64_t* slot_mapping, float* q_out) {
  __shared__ float scratch[32];
  const int64_t t = blockIdx.x;
  const int64_t h = blockIdx.y;
  const int64_t half = layout.head_dim / 2;
  const int64_t i = threadIdx.x;
  const bool active = i < half;
  const float* row = qkv + t * layout.row_stride;
  float c = 1.0f;
  float s = 0.0f;
  if (active) {
    const float angle = static_cast<float>(positions[t]) * inv_freq[i];
    c = cosf(angle);
    s = sinf(angle);
  }
  if (h < layout.num_heads) {
    if (!active) return;
    const float* head = row + h * layout.head_dim;
    float* out = q_out + (t * layout.num_heads + h) * layout.head_dim;
    const float x0 = head[i];
    const float x1 = head[i + half];
    out[i] = x0 * c - x1 * s;
    out[i + half] = x1 * c + x0 * s;
    return;
  }
  const int64_t slot = slot_mapping[t];
  if (slot < 0) return;  // the whole block returns together: no reduction is left waiting
  const int64_t kv_head = h - layout.num_heads;
  const float* k = row + layout.k_offset + kv_head * layout.head_dim;
  const float* v = row + layout.v_offset + kv_head * layout.head_dim;
  float k0 = 0.0f, k1 = 0.0f, v0 = 0.0f, v1 = 0.0f;
  if (active) {
    const float x0 = k[i];
    const float x1 = k[i + half];
    k0 = x0 * c - x1 * s;
    k1 = x1 * c + x0 * s;
    v0 = v[i];
    v1 = v[i + half];
  }
  store_pair_row(kv, kv.row_index(layer, 0, slot, kv_head), active, i, half, k0, k1, scratch);
  store_pair_row(kv, kv.row_index(layer, 1, slot, kv_head), active, i, half, v0, v1, scratch);
}

}  // namespace

void launch_rope_write_kv(const float* qkv, const QkvLayout& layout, const int32_t* positions,
                          int64_t num_tokens, const float* inv_freq, const KvCacheView& kv,
                          int64_t layer, const int64_t* slot_mapping, float* q_out,
                          cudaStream_t stream) {
  if (choose_rope_kv_path(layout.head_dim) != RopeKvPath::fused) {
    throw std::invalid_argument("fused rope + kv write: head_dim " +
                                std::to_string(layout.head_dim) +
                                " must be even and <= " + std::to_string(kRopeKvMaxHeadDim));
  }
  if (layout.num_kv_heads != kv.spec.num_kv_heads || layout.head_dim != kv.spec.head_dim) {
    throw std::invalid_argument("fused rope + kv write: q/k/v layout does not match the arena");
  }
  if (num_tokens == 0) return;
  const dim3 grid(static_cast<unsigned>(num_tokens),
                  static_cast<unsigned>(layout.num_heads + layout.num_kv_heads));
  // Whole warps, at least one thread per pair.
  const unsigned threads = static_cast<unsigned>((layout.head_dim / 2 + 31) / 32 * 32);
  const QkvArgs args{layout.num_heads,  layout.num_kv_heads, layout.head_dim,
                     layout.k_offset(), layout.v_offset(),   layout.row_stride()};
  rope_write_kv_kernel<<<grid, threads, 0, stream>>>(qkv, args, positions, inv_freq, kv_args(kv),
                                                     layer, slot_mapping, q_out);
  TIDAL_CUDA_CHECK_LAUNCH();
}

}  // namespace tidal::kernels::cuda
