#include "perf/model_spec.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::perf {
namespace {

double d(int64_t value) {
  return static_cast<double>(value);
}

double mlp_matrices(bool gated) {
  return gated ? 3.0 : 2.0;
}

// Parameters a token of `experts_per_moe_layer` routed experts touches in the MLPs of every layer
// (all experts for the total count).
double mlp_params(const ModelSpec& m, int64_t experts_per_moe_layer) {
  if (!m.is_moe()) return d(m.num_layers) * m.dense_mlp_params();
  const double per_moe_layer = m.router_params() + d(experts_per_moe_layer) * m.expert_params() +
                               d(m.num_shared_experts) * m.shared_expert_params();
  return d(m.num_dense_layers) * m.dense_mlp_params() + d(m.num_moe_layers()) * per_moe_layer;
}

double layer_independent_params(const ModelSpec& m) {
  return m.mixer_params() + m.norm_params() + m.embedding_params();
}

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw InputError(where + ": " + what);
}

void check_positive(const std::string& where, const char* key, int64_t value) {
  if (value < 1) fail(where, fmt::format("{} must be >= 1 (got {})", key, value));
}

}  // namespace

int64_t ModelSpec::num_sliding_layers() const {
  return std::count(layer_attention.begin(), layer_attention.end(), LayerAttention::sliding);
}

int64_t ModelSpec::num_linear_layers() const {
  return std::count(layer_attention.begin(), layer_attention.end(), LayerAttention::linear);
}

int64_t ModelSpec::shared_expert_width() const {
  return shared_expert_intermediate > 0 ? shared_expert_intermediate : moe_intermediate;
}

int64_t ModelSpec::kv_values_per_token_per_layer() const {
  if (is_mla()) return mla.kv_lora_rank + mla.qk_rope_head_dim;
  return 2 * num_kv_heads * head_dim;
}

double ModelSpec::attention_params_per_layer() const {
  const double h = d(hidden);
  if (is_mla()) {
    const double qk_width = d(num_heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim));
    const double q =
        mla.q_lora_rank > 0 ? h * d(mla.q_lora_rank) + d(mla.q_lora_rank) * qk_width : h * qk_width;
    const double kv_a = h * d(mla.kv_lora_rank + mla.qk_rope_head_dim);
    const double kv_b =
        d(mla.kv_lora_rank) * d(num_heads * (mla.qk_nope_head_dim + mla.v_head_dim));
    const double o = d(num_heads * mla.v_head_dim) * h;
    return q + kv_a + kv_b + o;
  }
  const double q_width = d(num_heads * head_dim);
  const double kv_width = d(num_kv_heads * head_dim);
  const double q_outputs = (attention_output_gate ? 2.0 : 1.0) * q_width;  // queries (and gates)
  double params = h * q_outputs + h * q_width + 2.0 * h * kv_width;
  if (attention_bias) params += q_outputs + 2.0 * kv_width + h;
  return params;
}

double ModelSpec::linear_attention_params_per_layer() const {
  const double h = d(hidden);
  const LinearAttentionDims& l = linear;
  const double in =
      h * d(l.conv_width() + l.value_width() + 2 * l.num_value_heads);  // qkv, z, b, a
  const double conv = d(l.conv_width() * l.conv_kernel);
  const double per_head = 2.0 * d(l.num_value_heads);  // decay rate and time-step bias
  const double norm = d(l.value_head_dim);             // gated RMSNorm of each head's output
  const double out = d(l.value_width()) * h;
  return in + conv + per_head + norm + out;
}

double ModelSpec::mixer_params() const {
  return d(num_attention_layers()) * attention_params_per_layer() +
         d(num_linear_layers()) * linear_attention_params_per_layer();
}

double ModelSpec::dense_mlp_params() const {
  return mlp_matrices(gated_mlp) * d(hidden) * d(intermediate);
}

double ModelSpec::expert_params() const {
  return mlp_matrices(gated_mlp) * d(hidden) * d(moe_intermediate);
}

double ModelSpec::shared_expert_params() const {
  return mlp_matrices(gated_mlp) * d(hidden) * d(shared_expert_width());
}

double ModelSpec::router_params() const {
  return d(hidden) * d(num_experts);
}

double ModelSpec::embedding_params() const {
  return (tied_embeddings ? 1.0 : 2.0) * d(vocab) * d(hidden);
}

double ModelSpec::norm_params() const {
  double per_layer = 2.0 * d(hidden);
  if (is_mla()) per_layer += d(mla.q_lora_rank + mla.kv_lora_rank);
  const double qk_norms = qk_norm ? 2.0 * d(head_dim) * d(num_attention_layers()) : 0.0;
  return d(num_layers) * per_layer + qk_norms + d(hidden);
}

double ModelSpec::total_params() const {
  return layer_independent_params(*this) + mlp_params(*this, num_experts);
}

double ModelSpec::active_params() const {
  return layer_independent_params(*this) + mlp_params(*this, num_active_experts);
}

double ModelSpec::active_params_without_embedding() const {
  // A tied matrix is still read by the LM head, so only an untied input embedding drops out.
  return active_params() - (tied_embeddings ? 0.0 : d(vocab) * d(hidden));
}

void check_model_spec(const ModelSpec& m, const std::string& where) {
  check_positive(where, "num_layers", m.num_layers);
  check_positive(where, "hidden", m.hidden);
  check_positive(where, "num_heads", m.num_heads);
  check_positive(where, "num_kv_heads", m.num_kv_heads);
  check_positive(where, "head_dim", m.head_dim);
  check_positive(where, "intermediate", m.intermediate);
  check_positive(where, "vocab", m.vocab);
  check_positive(where, "max_position", m.max_position);
  if (m.num_heads % m.num_kv_heads != 0) {
    fail(where,
         fmt::format("num_kv_heads {} must divide num_heads {}", m.num_kv_heads, m.num_heads));
  }
  if (m.is_mla()) {
    check_positive(where, "kv_lora_rank", m.mla.kv_lora_rank);
    check_positive(where, "qk_nope_head_dim", m.mla.qk_nope_head_dim);
    check_positive(where, "qk_rope_head_dim", m.mla.qk_rope_head_dim);
    check_positive(where, "v_head_dim", m.mla.v_head_dim);
    if (m.mla.q_lora_rank < 0) fail(where, "q_lora_rank must be >= 0");
  }
  if (!m.layer_attention.empty() && d(m.layer_attention.size()) != d(m.num_layers)) {
    fail(where, fmt::format("{} layer attention kinds for {} layers", m.layer_attention.size(),
                            m.num_layers));
  }
  if (m.num_sliding_layers() > 0 && m.sliding_window < 1) {
    fail(where, "sliding layers need a sliding_window >= 1");
  }
  if (m.sliding_window < 0) fail(where, "sliding_window must be >= 0");
  if (m.num_linear_layers() > 0) {
    if (m.is_mla()) fail(where, "linear-attention layers beside MLA attention are not modelled");
    if (m.num_attention_layers() == 0) {
      fail(where, "every layer is linear: tidal needs at least one attention layer");
    }
    const LinearAttentionDims& l = m.linear;
    check_positive(where, "linear_num_key_heads", l.num_key_heads);
    check_positive(where, "linear_num_value_heads", l.num_value_heads);
    check_positive(where, "linear_key_head_dim", l.key_head_dim);
    check_positive(where, "linear_value_head_dim", l.value_head_dim);
    check_positive(where, "linear_conv_kernel_dim", l.conv_kernel);
    if (l.num_value_heads % l.num_key_heads != 0) {
      fail(where, fmt::format("linear_num_key_heads {} must divide linear_num_value_heads {}",
                              l.num_key_heads, l.num_value_heads));
    }
  }
  if (m.num_experts < 0 || m.num_shared_experts < 0 || m.num_dense_layers < 0) {
    fail(where, "expert and dense-layer counts must be >= 0");
  }
  if (m.is_moe()) {
    if (m.num_active_experts < 1 || m.num_active_experts > m.num_experts) {
      fail(where, fmt::format("num_active_experts {} must be in [1, num_experts {}]",
                              m.num_active_experts, m.num_experts));
    }
    check_positive(where, "moe_intermediate", m.moe_intermediate);
    if (m.num_dense_layers >= m.num_layers) {
      fail(where, fmt::format("num_dense_layers {} leaves no MoE layer of {}", m.num_dense_layers,
                              m.num_layers));
    }
  } else if (m.num_active_experts != 0 || m.num_shared_experts != 0) {
    fail(where, "expert counts given for a dense model (num_experts 0)");
  }
}

}  // namespace tidal::perf
