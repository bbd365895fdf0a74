// Weights concatenated at load time so one GEMM (or GEMV) replaces several:
//   q/k/v:   rows stacked, [q_rows + k_rows + v_rows, cols]; output row t is [q_t | k_t | v_t]
//            (qkv_layout() gives the offsets the fused RoPE + KV write reads);
//   gate/up: rows interleaved in pairs, row 2i = gate row i, row 2i + 1 = up row i, so the output
//            [tokens, 2 * intermediate] holds (gate_i, up_i) side by side and a GEMV warp that
//            computes two consecutive rows has both inputs of SwiGLU output i (its epilogue).
// Quantized scales follow their rows. Every input must share format, cols and group_size.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/linear_weight.h"

namespace tidal::kernels {

// Where q, k and v sit in one row of a stacked q/k/v output (elements).
struct QkvLayout {
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t q_offset() const { return 0; }
  int64_t k_offset() const { return num_heads * head_dim; }
  int64_t v_offset() const { return (num_heads + num_kv_heads) * head_dim; }
  int64_t row_stride() const { return (num_heads + 2 * num_kv_heads) * head_dim; }
};

// std::invalid_argument when the parts differ in format, cols or group_size, or are empty.
LinearWeight concatenate_rows(const std::vector<const LinearWeight*>& parts);
LinearWeight concatenate_qkv(const LinearWeight& q, const LinearWeight& k, const LinearWeight& v);
// gate and up must have the same rows too.
LinearWeight interleave_gate_up(const LinearWeight& gate, const LinearWeight& up);

}  // namespace tidal::kernels
