// Specifications of the fused decode operators of kernels/cuda (fused_decode.cu), written as
// compositions of the plain references, so a fused kernel is tested against exactly what the
// unfused operators it replaces compute. Half activations are uint16 bits of the type `half`
// (WeightFormat::bf16 or fp16), rounded to nearest, ties to even.
#pragma once

#include <cstdint>

#include "kernels/fused_weights.h"
#include "kernels/kv_cache.h"
#include "kernels/linear_weight.h"

namespace tidal::kernels::reference {

// The rows of a stacked q/k/v output: q rotated into q_out, k rotated and v stored at their slots
// of `layer` (reference::rope, then reference::write_kv; slot -1 skipped).
void rope_write_kv(const float* qkv,  // [num_tokens, layout.row_stride()]
                   const QkvLayout& layout,
                   const int32_t* positions,  // [num_tokens]
                   int64_t num_tokens,
                   const float* inv_freq,  // [head_dim / 2]
                   const KvCacheView& kv, int64_t layer,
                   const int64_t* slot_mapping,  // [num_tokens]
                   float* q_out);                // [num_tokens, num_heads, head_dim]

// reference::rms_norm / add_rms_norm with the output rounded to the half type.
void rms_norm_to_half(const float* x,       // [num_rows, dim]
                      const float* weight,  // [dim]
                      int64_t num_rows, int64_t dim, float eps, WeightFormat half,
                      uint16_t* out);           // [num_rows, dim]
void add_rms_norm_to_half(float* residual,      // [num_rows, dim]
                          const float* x,       // [num_rows, dim]
                          const float* weight,  // [dim]
                          int64_t num_rows, int64_t dim, float eps, WeightFormat half,
                          uint16_t* out);  // [num_rows, dim]

// out[t, i] = silu(gate_up[t, 2i]) * gate_up[t, 2i + 1] (the interleaved gate/up output).
void swiglu_pairs(const float* gate_up,  // [num_tokens, 2 * intermediate]
                  int64_t num_tokens, int64_t intermediate,
                  float* out);  // [num_tokens, intermediate]
// The same, rounded to the half type.
void swiglu_pairs_to_half(const float* gate_up,  // [num_tokens, 2 * intermediate]
                          int64_t num_tokens, int64_t intermediate, WeightFormat half,
                          uint16_t* out);  // [num_tokens, intermediate]

// y = widen(x) W^T: reference::linear on the fp32 values the half activations stand for.
void linear_from_half(const uint16_t* x,  // [num_tokens, weight.cols]
                      WeightFormat half, int64_t num_tokens, const LinearView& weight,
                      float* y);  // [num_tokens, weight.rows]

}  // namespace tidal::kernels::reference
