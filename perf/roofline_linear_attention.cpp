#include "perf/roofline_linear_attention.h"

#include <cmath>

#include "perf/dtype.h"

namespace tidal::perf {
namespace {

constexpr double kActivationBytes = 2.0;  // bf16 q, k, v, gates and outputs
// Passes the chunked kernels make over a token's q, k and v (cumulative decay, the WY transform,
// the inter-chunk state pass, the output pass).
constexpr double kPrefillPasses = 3.0;

// One token's q, k, v (all heads of this GPU), in values.
double qkv_values(const LinearAttentionShape& s) {
  return 2.0 * s.num_key_heads * s.key_head_dim + s.num_value_heads * s.value_head_dim;
}

// One value head's state, in elements.
double state_elements(const LinearAttentionShape& s) {
  return s.key_head_dim * s.value_head_dim;
}

// The convolution's cached last conv_kernel - 1 inputs, read and written once per step.
double conv_state_bytes(const LinearAttentionShape& s) {
  return 2.0 * qkv_values(s) * (s.conv_kernel - 1.0) * kActivationBytes;
}

// `rows` tokens through the recurrent update: per value head and token the decay, the key's
// read of the state, the rank-one update and the query's read (7 dk x dv multiply-adds in
// FLOPs); the state read and written once.
OpWork decode_work(const LinearAttentionShape& s, double rows) {
  const double per_token_io =
      (qkv_values(s) + 3.0 * s.num_value_heads + s.num_value_heads * s.value_head_dim) *
      kActivationBytes;  // q, k, v, decay, beta and gate in; output out
  return {rows * s.num_value_heads * 7.0 * state_elements(s),
          2.0 * s.num_value_heads * state_elements(s) * s.state_bytes + conv_state_bytes(s) +
              rows * per_token_io};
}

// A prefill chunk of c tokens (p cached before it): per value head and token the intra-chunk
// products (q k^T, k k^T, and their products with v and the WY factors: 4 C (dk + dv)) and the
// state's parts (q S, k S and the update: 6 dk dv); the state materialized in bf16 once per
// chunk of kChunkTokens (written and read back) and the sequence's own state read (when it
// has a context) and written once in its dtype.
OpWork prefill_work(const LinearAttentionShape& s, double c, double p) {
  const double dk = s.key_head_dim;
  const double dv = s.value_head_dim;
  const double per_token_flops =
      s.num_value_heads * 2.0 * (2.0 * kChunkTokens * (dk + dv) + 3.0 * dk * dv);
  const double chunks = std::ceil(c / kChunkTokens);
  const double wy_values = s.num_value_heads * (dk + dv);  // w and u, written then read
  const double per_token_bytes =
      (kPrefillPasses * qkv_values(s) + 2.0 * wy_values + s.num_value_heads * dv) *
      kActivationBytes;
  const double state_bytes = s.num_value_heads * state_elements(s);
  const double own_state = (p > 0 ? 2.0 : 1.0) * state_bytes * s.state_bytes;
  return {c * per_token_flops, c * per_token_bytes + chunks * 2.0 * state_bytes * kActivationBytes +
                                   own_state + conv_state_bytes(s)};
}

}  // namespace

LinearAttentionShape linear_attention_shape(const ModelSpec& model, int32_t tp) {
  const LinearAttentionDims& l = model.linear;
  LinearAttentionShape s;
  s.num_key_heads = static_cast<double>(l.num_key_heads) / tp;
  s.num_value_heads = static_cast<double>(l.num_value_heads) / tp;
  s.key_head_dim = static_cast<double>(l.key_head_dim);
  s.value_head_dim = static_cast<double>(l.value_head_dim);
  s.conv_kernel = static_cast<double>(l.conv_kernel);
  s.state_bytes = dtype_bytes(l.state_dtype);
  return s;
}

AttentionWork linear_attention_work(const LinearAttentionShape& shape,
                                    std::span<const SeqWork> batch) {
  AttentionWork work;
  for (const SeqWork& seq : batch) {
    if (seq.num_new_tokens <= 0) continue;
    if (const int64_t rows = decode_rows(seq); rows > 0) {
      work.decode += decode_work(shape, static_cast<double>(rows));
    } else {
      work.prefill += prefill_work(shape, static_cast<double>(seq.num_new_tokens),
                                   static_cast<double>(seq.num_context_tokens));
    }
  }
  return work;
}

}  // namespace tidal::perf
