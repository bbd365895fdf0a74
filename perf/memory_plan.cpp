#include "perf/memory_plan.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/pipeline_stages.h"
#include "perf/weight_formats.h"

namespace tidal::perf {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// CUDA context, library workspaces and captured graphs: memory outside the weights, the KV cache
// and the activations that an engine process holds on every GPU.
constexpr double kRuntimeReserveBytes = 0.5 * kGiB;
// Embeddings, the LM head, norms and the MoE router stay in bf16 whatever the weight dtype.
// Activations are bf16.
constexpr double kActivationBytes = 2.0;

// Peak activation bytes per GPU of one forward pass over max_num_batched_tokens tokens, shared
// by the attention data-parallel ranks: the residual stream in and out, the q/k/v output (a
// linear-attention layer's input projections when wider) and the widest MLP's gate/up output
// plus its activation.
double activation_bytes(const ModelSpec& m, const Deployment& d) {
  const double tp = d.tp;
  double qkv_width = m.is_mla()
                         ? static_cast<double>(m.num_heads * m.head_dim) / tp +
                               static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim)
                         : static_cast<double>(m.num_heads * m.head_dim) / tp +
                               2.0 * static_cast<double>(kv_heads_per_gpu(m, d.tp) * m.head_dim);
  if (m.num_linear_layers() > 0) {
    const LinearAttentionDims& l = m.linear;
    qkv_width = std::max(
        qkv_width,
        static_cast<double>(l.conv_width() + l.value_width() + 2 * l.num_value_heads) / tp);
  }
  double mlp_width = static_cast<double>(m.intermediate);
  if (m.is_moe()) {
    const double moe_width = static_cast<double>(m.num_active_experts * m.moe_intermediate +
                                                 m.num_shared_experts * m.shared_expert_width());
    mlp_width = m.num_dense_layers > 0 ? std::max(mlp_width, moe_width) : moe_width;
  }
  const double mlp_outputs = (m.gated_mlp ? 3.0 : 2.0) * mlp_width / tp;
  const double per_token =
      (2.0 * static_cast<double>(m.hidden) + qkv_width + mlp_outputs) * kActivationBytes;
  return static_cast<double>(d.max_num_batched_tokens) / static_cast<double>(d.attention_dp) *
         per_token;
}

// Layers whose KV grows with the sequence: the full-attention ones, or every layer when all slide.
double growing_layers(const ModelSpec& m) {
  return static_cast<double>(m.num_full_layers() > 0 ? m.num_full_layers() : m.num_layers);
}

// "tp=4", with pipeline stages "tp=4, pp=2", with expert or attention data parallelism
// "tp=1, attention_dp=8, ep=8".
std::string layout_text(const Deployment& d) {
  const std::string stages = d.pp > 1 ? fmt::format(", pp={}", d.pp) : "";
  if (d.ep == 1 && d.attention_dp == 1) return fmt::format("tp={}{}", d.tp, stages);
  return fmt::format("tp={}, attention_dp={}, ep={}{}", d.tp, d.attention_dp, d.ep, stages);
}

// The prefix of a field's name in an error: "PATH." under a JSON path, nothing without one (a
// deployment given by command-line options).
std::string field_prefix(const std::string& json_path) {
  return json_path.empty() ? std::string() : json_path + ".";
}

// pp: at most one stage per layer; not with attention data parallelism (each stage would split
// its micro-batches over ranks again: not modelled). The link must carry something.
void check_pipeline_layout(const ModelSpec& model, const Deployment& d,
                           const std::string& json_path) {
  const std::string at = field_prefix(json_path);
  if (d.pp < 1) throw InputError(fmt::format("{}pp: must be >= 1 (got {})", at, d.pp));
  if (d.pp == 1) return;
  if (d.pp > model.num_layers) {
    throw InputError(
        fmt::format("{}pp: {} stages for the {} layers of {}: at most one stage per layer", at,
                    d.pp, model.num_layers, model.name));
  }
  if (d.attention_dp > 1) {
    throw InputError(fmt::format(
        "{}pp: {} stages with attention_dp {}: pipeline stages of attention data-parallel ranks "
        "are not modelled (use one or the other)",
        at, d.pp, d.attention_dp));
  }
  if (!(d.pp_link_gb_per_s > 0.0) || !(d.pp_link_latency_s >= 0.0)) {
    throw InputError(
        fmt::format("{}pp_link: needs gb_per_s_per_gpu > 0 and latency_ms >= 0 (got {} GB/s, {} s)",
                    at, d.pp_link_gb_per_s, d.pp_link_latency_s));
  }
}

// ep and attention_dp: an MoE model's layout only; ep splits the experts and the replica's GPUs.
void check_parallel_layout(const ModelSpec& model, const Deployment& d,
                           const std::string& json_path) {
  const std::string at = field_prefix(json_path);
  if (d.attention_dp < 1) {
    throw InputError(fmt::format("{}attention_dp: must be >= 1 (got {})", at, d.attention_dp));
  }
  if (d.ep < 1) throw InputError(fmt::format("{}ep: must be >= 1 (got {})", at, d.ep));
  const int64_t num_load_shares = static_cast<int64_t>(d.expert_load.shares.size());
  if (num_load_shares != 0 && num_load_shares != model.num_experts) {
    throw InputError(fmt::format("{}moe.expert_load: {} shares for the {} routed experts of {}", at,
                                 num_load_shares, model.num_experts, model.name));
  }
  if (!model.is_moe()) {
    if (d.ep > 1) {
      throw InputError(
          fmt::format("{}ep: {} needs an MoE model; {} is dense", at, d.ep, model.name));
    }
    if (d.attention_dp > 1) {
      throw InputError(fmt::format(
          "{}attention_dp: {} needs an MoE model; {} is dense (its data-parallel ranks would "
          "share nothing: give the pool more replicas instead)",
          at, d.attention_dp, model.name));
    }
    return;
  }
  if (model.num_experts % d.ep != 0) {
    throw InputError(fmt::format("{}ep: {} does not divide num_experts {} of {}", at, d.ep,
                                 model.num_experts, model.name));
  }
  if (d.stage_gpus() % d.ep != 0) {
    throw InputError(
        fmt::format("{}ep: {} does not divide the replica's {} GPUs (tp {} x attention_dp {})", at,
                    d.ep, d.stage_gpus(), d.tp, d.attention_dp));
  }
}

}  // namespace

void check_deployment(const ModelSpec& model, const Deployment& deployment,
                      const std::string& json_path) {
  const std::string at = field_prefix(json_path);
  const int64_t tp = deployment.tp;
  if (tp < 1) throw InputError(fmt::format("{}tp: must be >= 1 (got {})", at, tp));
  if (model.num_heads % tp != 0) {
    throw InputError(fmt::format("{}tp: {} does not divide num_heads {} of {}", at, tp,
                                 model.num_heads, model.name));
  }
  if (model.num_kv_heads % tp != 0 && tp % model.num_kv_heads != 0) {
    throw InputError(
        fmt::format("{}tp: {} neither divides nor is a multiple of num_kv_heads {} of {}", at, tp,
                    model.num_kv_heads, model.name));
  }
  // The engines split a linear-attention layer by its key heads (each with its value heads).
  if (model.num_linear_layers() > 0 && model.linear.num_key_heads % tp != 0) {
    throw InputError(fmt::format("{}tp: {} does not divide linear_num_key_heads {} of {}", at, tp,
                                 model.linear.num_key_heads, model.name));
  }
  check_parallel_layout(model, deployment, json_path);
  check_pipeline_layout(model, deployment, json_path);
  if (!(deployment.gpu_memory_utilization > 0.0 && deployment.gpu_memory_utilization <= 1.0)) {
    throw InputError(fmt::format("{}gpu_memory_utilization: must be in (0, 1] (got {})", at,
                                 deployment.gpu_memory_utilization));
  }
  if (deployment.block_size < 1) {
    throw InputError(fmt::format("{}block_size: must be >= 1 (got {})", at, deployment.block_size));
  }
  if (deployment.max_num_batched_tokens < 1) {
    throw InputError(fmt::format("{}max_num_batched_tokens: must be >= 1 (got {})", at,
                                 deployment.max_num_batched_tokens));
  }
  if (deployment.max_num_seqs < 1) {
    throw InputError(
        fmt::format("{}max_num_seqs: must be >= 1 (got {})", at, deployment.max_num_seqs));
  }
}

double weight_bytes_per_gpu(const ModelSpec& m, const Deployment& d) {
  const double tp = d.tp;
  const double hidden = static_cast<double>(m.hidden);
  const WeightFormats formats = weight_formats(m, d.weight_dtype);
  double attention = 0.0;
  if (m.is_mla()) {
    // vLLM deepseek_v2.py (v0.11): q_a_proj and kv_a_proj_with_mqa are replicated, q_b_proj,
    // kv_b_proj and o_proj split by heads.
    const MlaDims& mla = m.mla;
    const double replicated =
        hidden * static_cast<double>(mla.q_lora_rank + mla.kv_lora_rank + mla.qk_rope_head_dim);
    attention = replicated + (m.attention_params_per_layer() - replicated) / tp;
  } else {
    // q and o are split by heads; k and v by KV heads (replicated when tp > num_kv_heads). An
    // output gate doubles q.
    const double q_and_o = (m.attention_output_gate ? 3.0 : 2.0) * hidden *
                           static_cast<double>(m.num_heads * m.head_dim) / tp;
    const double k_and_v =
        2.0 * hidden * static_cast<double>(kv_heads_per_gpu(m, d.tp) * m.head_dim);
    attention = q_and_o + k_and_v;
  }
  // A linear-attention layer is split by heads whole.
  double bytes =
      (static_cast<double>(m.num_attention_layers()) * attention +
       static_cast<double>(m.num_linear_layers()) * m.linear_attention_params_per_layer() / tp) *
      formats.attention.bytes_per_weight;
  const double dense_layers = static_cast<double>(m.is_moe() ? m.num_dense_layers : m.num_layers);
  bytes += dense_layers * m.dense_mlp_params() / tp * formats.dense_mlp.bytes_per_weight;
  if (m.is_moe()) {
    const double moe_layers = static_cast<double>(m.num_moe_layers());
    // E / ep experts on each GPU, each split moe_tp ways: E / (ep * moe_tp) = E / num_gpus.
    bytes += moe_layers * static_cast<double>(m.num_experts) * m.expert_params() /
             static_cast<double>(d.stage_gpus()) * formats.experts.bytes_per_weight;
    bytes += moe_layers * static_cast<double>(m.num_shared_experts) * m.shared_expert_params() /
             tp * formats.shared_experts.bytes_per_weight;
    bytes += moe_layers * m.router_params() * kUnquantizedWeight.bytes_per_weight;
  }
  bytes += m.norm_params() * kUnquantizedWeight.bytes_per_weight;            // replicated
  bytes += m.embedding_params() / tp * kUnquantizedWeight.bytes_per_weight;  // vocab-parallel
  return bytes;
}

double kv_bytes_per_token_per_layer_per_gpu(const ModelSpec& m, const Deployment& d) {
  const double values = m.is_mla()
                            ? static_cast<double>(m.kv_values_per_token_per_layer())
                            : 2.0 * static_cast<double>(kv_heads_per_gpu(m, d.tp) * m.head_dim);
  return values * dtype_bytes(d.kv_dtype);
}

double kv_bytes_per_token_per_gpu(const ModelSpec& m, const Deployment& d) {
  return growing_layers(m) * kv_bytes_per_token_per_layer_per_gpu(m, d);
}

double sliding_kv_reserve_bytes(const ModelSpec& m, const Deployment& d) {
  if (m.num_full_layers() == 0 || m.num_sliding_layers() == 0) return 0.0;
  const int64_t blocks_per_window = (m.sliding_window + d.block_size - 1) / d.block_size + 1;
  const double tokens_per_seq = static_cast<double>(blocks_per_window * d.block_size);
  // Each attention rank keeps the windows of its own share of the sequences.
  const int64_t seqs_per_rank = (d.max_num_seqs + d.attention_dp - 1) / d.attention_dp;
  return static_cast<double>(seqs_per_rank) * tokens_per_seq *
         static_cast<double>(m.num_sliding_layers()) * kv_bytes_per_token_per_layer_per_gpu(m, d);
}

double recurrent_state_bytes_per_seq_per_gpu(const ModelSpec& m, const Deployment& d) {
  if (m.num_linear_layers() == 0) return 0.0;
  const LinearAttentionDims& l = m.linear;
  const double tp = d.tp;
  const double state = static_cast<double>(l.num_value_heads) / tp *
                       static_cast<double>(l.key_head_dim * l.value_head_dim) *
                       dtype_bytes(l.state_dtype);
  const double conv = static_cast<double>(l.conv_width()) / tp *
                      static_cast<double>(l.conv_kernel - 1) * kActivationBytes;
  return static_cast<double>(m.num_linear_layers()) * (state + conv);
}

std::string_view memory_fraction_name(MemoryFraction fraction) {
  switch (fraction) {
    case MemoryFraction::device:
      return "device";
    case MemoryFraction::device_static:
      return "device_static";
    case MemoryFraction::free:
      return "free";
  }
  return "device";
}

int64_t kv_heads_per_gpu(const ModelSpec& model, int32_t tp) {
  return std::max<int64_t>(1, model.num_kv_heads / std::max<int32_t>(1, tp));
}

namespace {

// The recurrent states of a linear-attention model's sequences (MemoryPlan): max_num_seqs of
// them, or with a state_memory_ratio those that fit in its share of the cache memory (each rank
// its own sequences' states).
void reserve_states(const ModelSpec& layers, const Deployment& d, const std::string& json_path,
                    MemoryPlan& plan) {
  const double per_seq = recurrent_state_bytes_per_seq_per_gpu(layers, d);
  if (per_seq <= 0.0) return;
  int64_t slots_per_rank = (d.max_num_seqs + d.attention_dp - 1) / d.attention_dp;
  if (d.state_memory_ratio > 0.0) {
    const double share =
        plan.kv_cache_bytes_per_gpu * d.state_memory_ratio / (1.0 + d.state_memory_ratio);
    slots_per_rank = std::min<int64_t>(
        slots_per_rank, static_cast<int64_t>(std::max(0.0, std::floor(share / per_seq))));
  }
  if (slots_per_rank < 1) {
    throw InputError(
        fmt::format("{}: {} has no room for one sequence's recurrent state ({:.1f} MiB per GPU) in "
                    "state_memory_ratio {} of its {:.2f} GiB cache memory per GPU",
                    json_path, layers.name, per_seq / (1024.0 * 1024.0), d.state_memory_ratio,
                    plan.kv_cache_bytes_per_gpu / kGiB));
  }
  plan.state_reserve_bytes = static_cast<double>(slots_per_rank) * per_seq;
  plan.num_state_slots = slots_per_rank * d.attention_dp;
}

// One stage's (or, without pipeline parallelism, the replica's) plan: `layers` is the model the
// stage's GPUs hold the layers of, `embedding_bytes_per_gpu` its share of the embedding and LM
// head.
MemoryPlan plan_stage_memory(const ModelSpec& model, const ModelSpec& layers,
                             double embedding_bytes_per_gpu, const GpuSpec& gpu,
                             const Deployment& deployment, const std::string& json_path) {
  MemoryPlan plan;
  plan.weight_bytes_per_gpu = weight_bytes_per_gpu(layers, deployment) + embedding_bytes_per_gpu;
  plan.kv_bytes_per_token_per_gpu = kv_bytes_per_token_per_gpu(layers, deployment);
  plan.sliding_kv_reserve_bytes = sliding_kv_reserve_bytes(layers, deployment);
  plan.activation_reserve_bytes = kRuntimeReserveBytes + activation_bytes(layers, deployment);
  const double usable = gpu.memory_bytes * deployment.gpu_memory_utilization;
  switch (deployment.memory_fraction) {
    case MemoryFraction::device:
      plan.kv_cache_bytes_per_gpu =
          usable - plan.weight_bytes_per_gpu - plan.activation_reserve_bytes;
      break;
    case MemoryFraction::device_static:
      plan.kv_cache_bytes_per_gpu = usable - plan.weight_bytes_per_gpu;
      break;
    case MemoryFraction::free:
      plan.kv_cache_bytes_per_gpu =
          deployment.gpu_memory_utilization *
          (gpu.memory_bytes - plan.weight_bytes_per_gpu - plan.activation_reserve_bytes);
      break;
  }
  reserve_states(layers, deployment, json_path, plan);
  const double block_bytes = plan.kv_bytes_per_token_per_gpu * deployment.block_size;
  const double num_blocks = std::floor(
      (plan.kv_cache_bytes_per_gpu - plan.sliding_kv_reserve_bytes - plan.state_reserve_bytes) /
      block_bytes);
  if (num_blocks < 1.0) {
    throw InputError(fmt::format(
        "{}: {} does not fit on {} at {} ({} weights): weights {:.1f} GiB + activation reserve "
        "{:.1f} GiB + sliding-window KV reserve {:.1f} GiB + recurrent-state reserve {:.1f} GiB "
        "per GPU leave no room for one KV block in {:.1f} GiB usable ({:.0f} GiB x "
        "gpu_memory_utilization {:.2f})",
        json_path, model.name, gpu.name, layout_text(deployment),
        dtype_name(deployment.weight_dtype), plan.weight_bytes_per_gpu / kGiB,
        plan.activation_reserve_bytes / kGiB, plan.sliding_kv_reserve_bytes / kGiB,
        plan.state_reserve_bytes / kGiB, usable / kGiB, gpu.memory_bytes / kGiB,
        deployment.gpu_memory_utilization));
  }
  plan.num_kv_blocks_per_rank = static_cast<int64_t>(num_blocks);
  plan.num_kv_blocks = plan.num_kv_blocks_per_rank * deployment.attention_dp;
  plan.kv_bytes_per_token_all_stages = plan.kv_bytes_per_token_per_gpu;
  plan.sliding_kv_reserve_bytes_all_stages = plan.sliding_kv_reserve_bytes;
  plan.state_bytes_per_seq_all_stages = recurrent_state_bytes_per_seq_per_gpu(layers, deployment);
  return plan;
}

}  // namespace

MemoryPlan plan_memory(const ModelSpec& model, const GpuSpec& gpu, const Deployment& deployment,
                       const std::string& json_path) {
  check_deployment(model, deployment, json_path);
  if (deployment.pp == 1) return plan_stage_memory(model, model, 0.0, gpu, deployment, json_path);
  // Each stage holds its layers; the first the input embedding, the last the LM head (a copy of
  // the embedding when tied), vocab-parallel over the stage's tp GPUs.
  const double embedding_bytes = static_cast<double>(model.vocab) *
                                 static_cast<double>(model.hidden) / deployment.tp *
                                 kUnquantizedWeight.bytes_per_weight;
  MemoryPlan binding;
  double kv_bytes_all_stages = 0.0;
  double sliding_reserve_all_stages = 0.0;
  double state_bytes_all_stages = 0.0;
  int64_t fewest_state_slots = 0;
  const std::vector<PipelineStage> stages = split_layers(model.num_layers, deployment.pp);
  for (size_t s = 0; s < stages.size(); ++s) {
    const PipelineStage& stage = stages[s];
    const double stage_embedding =
        (stage.has_embedding ? embedding_bytes : 0.0) + (stage.has_lm_head ? embedding_bytes : 0.0);
    const MemoryPlan plan =
        plan_stage_memory(model, stage_layers_model(model, stage), stage_embedding, gpu, deployment,
                          fmt::format("{} (pipeline stage {})", json_path, s));
    kv_bytes_all_stages += plan.kv_bytes_per_token_per_gpu;
    sliding_reserve_all_stages += plan.sliding_kv_reserve_bytes;
    state_bytes_all_stages += plan.state_bytes_per_seq_all_stages;
    if (plan.num_state_slots > 0) {
      fewest_state_slots = fewest_state_slots == 0
                               ? plan.num_state_slots
                               : std::min(fewest_state_slots, plan.num_state_slots);
    }
    if (s == 0 || plan.num_kv_blocks < binding.num_kv_blocks) binding = plan;
  }
  binding.kv_bytes_per_token_all_stages = kv_bytes_all_stages;
  binding.sliding_kv_reserve_bytes_all_stages = sliding_reserve_all_stages;
  binding.state_bytes_per_seq_all_stages = state_bytes_all_stages;
  binding.num_state_slots = fewest_state_slots;
  return binding;
}

}  // namespace tidal::perf
