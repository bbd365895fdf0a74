#include "kernels/cpu/fused_reference.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/kv_write.h"
#include "kernels/cpu/rms_norm.h"
#include "kernels/cpu/rope.h"
#include "kernels/numeric/bf16.h"
#include "kernels/numeric/fp16.h"

namespace tidal::kernels::reference {
namespace {

uint16_t to_half(float value, WeightFormat half) {
  switch (half) {
    case WeightFormat::bf16:
      return float_to_bf16(value);
    case WeightFormat::fp16:
      return float_to_fp16(value);
    default:
      throw std::invalid_argument("half activations: format must be bf16 or fp16");
  }
}

void round_all(const std::vector<float>& values, WeightFormat half, uint16_t* out) {
  for (size_t i = 0; i < values.size(); ++i) out[i] = to_half(values[i], half);
}

}  // namespace

void rope_write_kv(const float* qkv, const QkvLayout& layout, const int32_t* positions,
                   int64_t num_tokens, const float* inv_freq, const KvCacheView& kv, int64_t layer,
                   const int64_t* slot_mapping, float* q_out) {
  const int64_t q_width = layout.num_heads * layout.head_dim;
  const int64_t kv_width = layout.num_kv_heads * layout.head_dim;
  std::vector<float> k(num_tokens * kv_width);  // [num_tokens, num_kv_heads, head_dim]
  std::vector<float> v(num_tokens * kv_width);  // [num_tokens, num_kv_heads, head_dim]
  for (int64_t t = 0; t < num_tokens; ++t) {
    const float* row = qkv + t * layout.row_stride();
    std::copy(row + layout.q_offset(), row + layout.q_offset() + q_width, q_out + t * q_width);
    std::copy(row + layout.k_offset(), row + layout.k_offset() + kv_width, k.data() + t * kv_width);
    std::copy(row + layout.v_offset(), row + layout.v_offset() + kv_width, v.data() + t * kv_width);
  }
  rope(q_out, k.data(), positions, num_tokens, layout.num_heads, layout.num_kv_heads,
       layout.head_dim, inv_freq);
  write_kv(kv, layer, k.data(), v.data(), slot_mapping, num_tokens);
}

void rms_norm_to_half(const float* x, const float* weight, int64_t num_rows, int64_t dim, float eps,
                      WeightFormat half, uint16_t* out) {
  std::vector<float> normed(num_rows * dim);  // [num_rows, dim]
  rms_norm(x, weight, num_rows, dim, eps, normed.data());
  round_all(normed, half, out);
}

void add_rms_norm_to_half(float* residual, const float* x, const float* weight, int64_t num_rows,
                          int64_t dim, float eps, WeightFormat half, uint16_t* out) {
  std::vector<float> normed(num_rows * dim);  // [num_rows, dim]
  add_rms_norm(residual, x, weight, num_rows, dim, eps, normed.data());
  round_all(normed, half, out);
}

void swiglu_pairs(const float* gate_up, int64_t num_tokens, int64_t intermediate, float* out) {
  const int64_t count = num_tokens * intermediate;
  std::vector<float> gate(count);  // [num_tokens, intermediate]
  std::vector<float> up(count);    // [num_tokens, intermediate]
  for (int64_t i = 0; i < count; ++i) {
    gate[i] = gate_up[2 * i];
    up[i] = gate_up[2 * i + 1];
  }
  swiglu(gate.data(), up.data(), count, out);
}

void swiglu_pairs_to_half(const float* gate_up, int64_t num_tokens, int64_t intermediate,
                          WeightFormat half, uint16_t* out) {
  std::vector<float> values(num_tokens * intermediate);  // [num_tokens, intermediate]
  swiglu_pairs(gate_up, num_tokens, intermediate, values.data());
  round_all(values, half, out);
}

void linear_from_half(const uint16_t* x, WeightFormat half, int64_t num_tokens,
                      const LinearView& weight, float* y) {
  if (half != WeightFormat::bf16 && half != WeightFormat::fp16) {
    throw std::invalid_argument("linear_from_half: activations must be bf16 or fp16");
  }
  std::vector<float> widened(num_tokens * weight.cols);  // [num_tokens, cols]
  for (size_t i = 0; i < widened.size(); ++i) widened[i] = half_weight_value(half, x[i]);
  linear(widened.data(), num_tokens, weight, y);
}

}  // namespace tidal::kernels::reference
