#include "perf/roofline_costs.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/attention_dp.h"

namespace tidal::perf {
namespace {

constexpr double kActivationBytes = 2.0;   // bf16 activations
constexpr double kUnquantizedBytes = 2.0;  // embeddings, LM head, router stay bf16
constexpr double kLogitBytes = 4.0;        // fp32 logits
constexpr double kSamplingPasses = 3.0;    // softmax read, probabilities write, sampling read

// One layer's attention work (prefill and decode parts) over `layers` layers.
OpWork all_layers(const AttentionWork& work, double layers) {
  return {layers * (work.prefill.flops + work.decode.flops),
          layers * (work.prefill.bytes + work.decode.bytes)};
}

// Tensor FLOP/s a GEMM with weights of `dtype` runs at: fp8/int8/fp4 weights use their own tensor
// path where the chip has it and otherwise dequantize to bf16; int4 is weight-only (bf16 compute);
// fp32 runs as tf32 at half the bf16 rate.
double peak_flops_for(DType dtype, const GpuSpec& gpu) {
  switch (dtype) {
    case DType::fp32:
      return gpu.flops_bf16 / 2.0;
    case DType::bf16:
    case DType::fp16:
    case DType::int4:
      return gpu.flops_bf16;
    case DType::fp8:
      return gpu.flops_fp8 > 0 ? gpu.flops_fp8 : gpu.flops_bf16;
    case DType::int8:
      return gpu.flops_int8 > 0 ? gpu.flops_int8 : gpu.flops_bf16;
    case DType::fp4:
      return gpu.flops_fp4 > 0 ? gpu.flops_fp4 : gpu.flops_bf16;
  }
  return gpu.flops_bf16;
}

void check_positive(double value, const char* name) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw InputError(
        fmt::format("roofline_options.{}: must be a positive number (got {})", name, value));
  }
}

void check_options(const RooflineOptions& o) {
  check_positive(o.gemm_compute_efficiency, "gemm_compute_efficiency");
  check_positive(o.gemm_memory_efficiency, "gemm_memory_efficiency");
  check_positive(o.attention_compute_efficiency, "attention_compute_efficiency");
  check_positive(o.attention_memory_efficiency, "attention_memory_efficiency");
  check_positive(o.elementwise_memory_efficiency, "elementwise_memory_efficiency");
  check_positive(o.allreduce_bandwidth_efficiency, "allreduce_bandwidth_efficiency");
  check_positive(o.pcie_efficiency, "pcie_efficiency");
  check_positive(o.alltoall_bandwidth_efficiency, "alltoall_bandwidth_efficiency");
  if (o.allreduce_latency_s < 0 || o.alltoall_latency_s < 0 || o.min_kernel_seconds < 0 ||
      o.cpu_overhead_base_s < 0 || o.cpu_overhead_per_seq_s < 0) {
    throw InputError("roofline_options: latencies and CPU overheads must be >= 0");
  }
  if (o.max_precomputed_tokens < 0 || o.max_precomputed_seqs < 0) {
    throw InputError("roofline_options: precomputed table sizes must be >= 0");
  }
}

// A GEMM [num_tokens, k] x [k, n] with weights of `weight_bytes` per element.
OpWork gemm(double num_tokens, double k, double n, double weight_bytes) {
  return {2.0 * num_tokens * k * n, k * n * weight_bytes + num_tokens * (k + n) * kActivationBytes};
}

}  // namespace

RooflineCosts::RooflineCosts(const ModelSpec& model, const GpuSpec& gpu,
                             const Deployment& deployment, const RooflineOptions& options)
    : model_(model),
      gpu_(gpu),
      deployment_(deployment),
      options_(options),
      formats_(weight_formats(model, deployment.weight_dtype)) {
  check_deployment(model, deployment, "deployment");
  check_options(options);
  gemm_peak_flops_ = peak_flops_for(deployment.weight_dtype, gpu);
  kv_bytes_ = dtype_bytes(deployment.kv_dtype);
  heads_per_gpu_ = static_cast<double>(model.num_heads) / deployment.tp;
  kv_heads_per_gpu_ = static_cast<double>(kv_heads_per_gpu(model, deployment.tp));
  kv_bytes_per_token_ = kv_bytes_per_token_per_gpu(model, deployment);
  full_attention_.num_heads = heads_per_gpu_;
  full_attention_.num_kv_heads = kv_heads_per_gpu_;
  full_attention_.head_dim = static_cast<double>(model.head_dim);
  full_attention_.kv_bytes = kv_bytes_;
  full_attention_.mla = model.is_mla();
  full_attention_.mla_dims = model.mla;
  full_attention_.kv_b_weight_bytes = formats_.attention.bytes_per_weight;
  sliding_attention_ = full_attention_;
  sliding_attention_.window = model.sliding_window;
  linear_attention_ = linear_attention_shape(model, deployment.tp);
  const double layers = static_cast<double>(model.num_layers);
  attention_share_ = static_cast<double>(model.num_attention_layers()) / layers;
  linear_share_ = static_cast<double>(model.num_linear_layers()) / layers;
}

double RooflineCosts::gemm_seconds(const OpWork& work, double peak_flops) const {
  return std::max({options_.min_kernel_seconds,
                   work.flops / (peak_flops * options_.gemm_compute_efficiency),
                   work.bytes / (gpu_.hbm_bandwidth_Bps * options_.gemm_memory_efficiency)});
}

double RooflineCosts::gemms_seconds(const LayerGemms& gemms) const {
  double seconds = 0.0;
  for (int i = 0; i < gemms.num_gemms; ++i) {
    const LayerGemms::Gemm& g = gemms.gemms[i];
    seconds += g.share * gemm_seconds(g.work, g.peak_flops);
  }
  return seconds;
}

double RooflineCosts::elementwise_seconds(double bytes, double num_kernels) const {
  return std::max(num_kernels * options_.min_kernel_seconds,
                  bytes / (gpu_.hbm_bandwidth_Bps * options_.elementwise_memory_efficiency));
}

double RooflineCosts::allreduce_seconds(double bytes) const {
  const double tp = deployment_.tp;
  if (deployment_.tp <= 1) return 0.0;
  return options_.allreduce_latency_s +
         2.0 * (tp - 1.0) / tp * bytes /
             (gpu_.interconnect_Bps * options_.allreduce_bandwidth_efficiency);
}

LayerGemms RooflineCosts::layer_gemms(OpClass op, int64_t num_tokens) const {
  const double t = static_cast<double>(num_tokens);
  const double h = static_cast<double>(model_.hidden);
  const double hd = static_cast<double>(model_.head_dim);
  const double tp = deployment_.tp;
  const double up_projections = model_.gated_mlp ? 2.0 : 1.0;
  const double attention_bytes = formats_.attention.bytes_per_weight;
  const double attention_peak = peak_flops_for(formats_.attention.dtype, gpu_);
  const MlaDims& mla = model_.mla;
  LayerGemms gemms;
  switch (op) {
    case OpClass::qkv_proj:
      if (model_.is_mla()) {
        // Replicated down-projections (q_a, kv_a with the shared rotary key), split q_b.
        const double q_width =
            heads_per_gpu_ * static_cast<double>(mla.qk_nope_head_dim + mla.qk_rope_head_dim);
        if (mla.q_lora_rank > 0) {
          const double q_rank = static_cast<double>(mla.q_lora_rank);
          gemms.add(gemm(t, h, q_rank, attention_bytes), attention_peak);
          gemms.add(gemm(t, q_rank, q_width, attention_bytes), attention_peak);
        } else {
          gemms.add(gemm(t, h, q_width, attention_bytes), attention_peak);
        }
        gemms.add(gemm(t, h, static_cast<double>(mla.kv_lora_rank + mla.qk_rope_head_dim),
                       attention_bytes),
                  attention_peak);
      } else {
        const double q_outputs = (model_.attention_output_gate ? 2.0 : 1.0) * heads_per_gpu_;
        gemms.add(gemm(t, h, (q_outputs + 2.0 * kv_heads_per_gpu_) * hd, attention_bytes),
                  attention_peak, attention_share_);
      }
      if (linear_share_ > 0) {  // in_proj_qkvz and in_proj_ba, split by heads
        const LinearAttentionShape& l = linear_attention_;
        const double qkvz =
            2.0 * l.num_key_heads * l.key_head_dim + 2.0 * l.num_value_heads * l.value_head_dim;
        gemms.add(gemm(t, h, qkvz, attention_bytes), attention_peak, linear_share_);
        gemms.add(gemm(t, h, 2.0 * l.num_value_heads, attention_bytes), attention_peak,
                  linear_share_);
      }
      break;
    case OpClass::o_proj: {
      const double v_dim = model_.is_mla() ? static_cast<double>(mla.v_head_dim) : hd;
      gemms.add(gemm(t, heads_per_gpu_ * v_dim, h, attention_bytes), attention_peak,
                attention_share_);
      if (linear_share_ > 0) {
        const LinearAttentionShape& l = linear_attention_;
        gemms.add(gemm(t, l.num_value_heads * l.value_head_dim, h, attention_bytes), attention_peak,
                  linear_share_);
      }
      break;
    }
    case OpClass::mlp_up_gate:
      gemms.add(gemm(t, h, up_projections * static_cast<double>(model_.intermediate) / tp,
                     formats_.dense_mlp.bytes_per_weight),
                peak_flops_for(formats_.dense_mlp.dtype, gpu_));
      break;
    case OpClass::mlp_down:
      gemms.add(gemm(t, static_cast<double>(model_.intermediate) / tp, h,
                     formats_.dense_mlp.bytes_per_weight),
                peak_flops_for(formats_.dense_mlp.dtype, gpu_));
      break;
    case OpClass::moe_router:  // replicated [t, h] x [h, num_experts]
      gemms.add(
          gemm(t, h, static_cast<double>(model_.num_experts), kUnquantizedWeight.bytes_per_weight),
          gpu_.flops_bf16);
      break;
    case OpClass::moe_experts: {
      if (deployment_.attention_dp == 1) {
        gemms.add(routed_expert_work(t), peak_flops_for(formats_.experts.dtype, gpu_));
      }
      if (model_.num_shared_experts > 0) {  // every token runs every shared expert
        const double shared = static_cast<double>(model_.num_shared_experts);
        const double shared_params_per_gpu = model_.shared_expert_params() / tp;
        const double shared_width = static_cast<double>(model_.shared_expert_width()) / tp;
        gemms.add(
            {2.0 * t * shared * shared_params_per_gpu,
             shared * shared_params_per_gpu * formats_.shared_experts.bytes_per_weight +
                 t * shared * (2.0 * h + (up_projections + 1.0) * shared_width) * kActivationBytes},
            peak_flops_for(formats_.shared_experts.dtype, gpu_));
      }
      break;
    }
    default:
      break;
  }
  return gemms;
}

OpWork RooflineCosts::routed_expert_work(double num_tokens) const {
  if (deployment_.expert_load.balanced()) {
    return rank_routed_expert_work(num_tokens, deployment_.expert_load, 0);
  }
  // Skewed routing: the ranks differ, and the step waits for the slowest.
  OpWork slowest;
  double slowest_seconds = -1.0;
  for (int32_t rank = 0; rank < deployment_.ep; ++rank) {
    const OpWork work = rank_routed_expert_work(num_tokens, deployment_.expert_load, rank);
    const double seconds = gemm_seconds(work, peak_flops_for(formats_.experts.dtype, gpu_));
    if (seconds > slowest_seconds) {
      slowest = work;
      slowest_seconds = seconds;
    }
  }
  return slowest;
}

OpWork RooflineCosts::rank_routed_expert_work(double num_tokens, const ExpertLoad& load,
                                              int32_t rank) const {
  // Each token runs num_active_experts routed experts. Weight traffic counts the distinct
  // experts of this GPU the batch touches (expert_load.h; uniform routing by default).
  const double h = static_cast<double>(model_.hidden);
  const double up_projections = model_.gated_mlp ? 2.0 : 1.0;
  const RankExpertWork rank_work = rank_expert_work(
      load, model_.num_experts, model_.num_active_experts, deployment_.ep, rank, num_tokens);
  const double moe_tp = deployment_.moe_tp();
  const double expert_params_per_gpu = model_.expert_params() / moe_tp;
  const double width = static_cast<double>(model_.moe_intermediate) / moe_tp;
  const double assignments = rank_work.num_assignments;
  const double activations =
      assignments * (2.0 * h + (up_projections + 1.0) * width) * kActivationBytes;
  return {
      2.0 * assignments * expert_params_per_gpu,
      rank_work.num_experts_touched * expert_params_per_gpu * formats_.experts.bytes_per_weight +
          activations};
}

double RooflineCosts::routed_expert_skew_factor(double num_tokens) const {
  if (deployment_.expert_load.balanced() || num_tokens <= 0) return 1.0;
  const double peak = peak_flops_for(formats_.experts.dtype, gpu_);
  return gemm_seconds(routed_expert_work(num_tokens), peak) /
         gemm_seconds(rank_routed_expert_work(num_tokens, ExpertLoad{}, 0), peak);
}

double RooflineCosts::alltoall_bytes_per_gpu(double num_tokens) const {
  const double n = deployment_.stage_gpus();
  const double ep = deployment_.ep;
  const double k = static_cast<double>(model_.num_active_experts);
  // Probability that one expert group receives a given token: 1 - (1 - 1/ep)^k.
  const double group_hit = 1.0 - std::pow(1.0 - 1.0 / ep, k);
  return num_tokens / n * (n - 1.0) * group_hit * static_cast<double>(model_.hidden) *
         kActivationBytes;
}

double RooflineCosts::alltoall_seconds(double num_tokens) const {
  if (deployment_.attention_dp <= 1 || num_tokens <= 0) return 0.0;
  // Inside one scale-up domain over its links, beyond it over the scale-out network.
  const bool one_domain = deployment_.num_gpus() <= gpu_.nvlink_domain_size;
  const double link_Bps =
      one_domain || gpu_.scale_out_Bps <= 0 ? gpu_.interconnect_Bps : gpu_.scale_out_Bps;
  return options_.alltoall_latency_s +
         alltoall_bytes_per_gpu(num_tokens) / (link_Bps * options_.alltoall_bandwidth_efficiency);
}

double RooflineCosts::shared_token_seconds(OpClass op, int64_t num_tokens) const {
  if (deployment_.attention_dp <= 1 || num_tokens <= 0) return 0.0;
  const double t = static_cast<double>(num_tokens);
  const double moe_layers = static_cast<double>(model_.num_moe_layers());
  switch (op) {
    case OpClass::moe_experts:
      return moe_layers *
             gemm_seconds(routed_expert_work(t), peak_flops_for(formats_.experts.dtype, gpu_));
    case OpClass::allreduce:  // dispatch before the experts, combine after
      return moe_layers * 2.0 * alltoall_seconds(t);
    default:
      return 0.0;
  }
}

OpWork RooflineCosts::layer_work(OpClass op, int64_t num_tokens) const {
  const double t = static_cast<double>(num_tokens);
  const double h = static_cast<double>(model_.hidden);
  const double up_projections = model_.gated_mlp ? 2.0 : 1.0;
  switch (op) {
    case OpClass::norm:  // input and post-attention RMSNorm: read and write [t, h]
      return {0.0, 2.0 * (2.0 * t * h * kActivationBytes + h * kUnquantizedBytes)};
    case OpClass::rope: {  // read and write the rotated parts of q and k
      const double rotated =
          model_.is_mla()
              ? (heads_per_gpu_ + 1.0) * static_cast<double>(model_.mla.qk_rope_head_dim)
              : (heads_per_gpu_ + kv_heads_per_gpu_) * static_cast<double>(model_.head_dim);
      return {0.0, 2.0 * t * rotated * kActivationBytes};
    }
    case OpClass::mlp_act:  // read [t, up_projections * i], write [t, i]
      return {0.0, (up_projections + 1.0) * t * static_cast<double>(model_.intermediate) /
                       deployment_.tp * kActivationBytes};
    case OpClass::residual_add:  // two per layer: read two [t, h], write one
      return {0.0, 2.0 * 3.0 * t * h * kActivationBytes};
    default: {
      OpWork work;
      const LayerGemms gemms = layer_gemms(op, num_tokens);
      for (int i = 0; i < gemms.num_gemms; ++i) {
        const LayerGemms::Gemm& g = gemms.gemms[i];
        work += OpWork{g.share * g.work.flops, g.share * g.work.bytes};
      }
      return work;
    }
  }
}

double RooflineCosts::token_seconds(OpClass op, int64_t num_tokens) const {
  if (num_tokens <= 0) return 0.0;
  const double t = static_cast<double>(num_tokens);
  const double layers = static_cast<double>(layers_running(model_, op));
  switch (op) {
    case OpClass::embedding:
      return elementwise_seconds(embedding_work(t).bytes, 1.0);
    case OpClass::norm:  // two norms per layer plus the final norm
      return layers * elementwise_seconds(layer_work(op, num_tokens).bytes, 2.0) +
             elementwise_seconds(final_norm_work(t).bytes, 1.0);
    case OpClass::residual_add:  // two adds per layer
      return layers * elementwise_seconds(layer_work(op, num_tokens).bytes, 2.0);
    case OpClass::rope:
    case OpClass::mlp_act:
      return layers * elementwise_seconds(layer_work(op, num_tokens).bytes, 1.0);
    case OpClass::qkv_proj:
    case OpClass::o_proj:
    case OpClass::mlp_up_gate:
    case OpClass::mlp_down:
    case OpClass::moe_router:
    case OpClass::moe_experts:
      return layers * gemms_seconds(layer_gemms(op, num_tokens));
    case OpClass::allreduce:  // after attention and after the MLP: [t, h] each
      return 2.0 * layers *
             allreduce_seconds(t * static_cast<double>(model_.hidden) * kActivationBytes);
    default:
      return 0.0;
  }
}

double RooflineCosts::seq_seconds(OpClass op, int64_t count) const {
  if (count <= 0) return 0.0;
  const double s = static_cast<double>(count);
  switch (op) {
    case OpClass::lm_head:
      return gemm_seconds(lm_head_work(s), gpu_.flops_bf16);
    case OpClass::sampling:
      return elementwise_seconds(sampling_work(s).bytes, kSamplingPasses);
    case OpClass::cpu_overhead:
      return options_.cpu_overhead_base_s + options_.cpu_overhead_per_seq_s * s;
    default:
      return 0.0;
  }
}

OpWork RooflineCosts::embedding_work(double num_tokens) const {
  return {0.0, 2.0 * num_tokens * static_cast<double>(model_.hidden) * kUnquantizedBytes};
}

OpWork RooflineCosts::final_norm_work(double num_tokens) const {
  const double h = static_cast<double>(model_.hidden);
  return {0.0, 2.0 * num_tokens * h * kActivationBytes + h * kUnquantizedBytes};
}

OpWork RooflineCosts::lm_head_work(double num_logit_rows) const {
  const double vocab_per_gpu = static_cast<double>(model_.vocab) / deployment_.tp;
  return gemm(num_logit_rows, static_cast<double>(model_.hidden), vocab_per_gpu, kUnquantizedBytes);
}

OpWork RooflineCosts::sampling_work(double num_logit_rows) const {
  return {0.0, kSamplingPasses * num_logit_rows * static_cast<double>(model_.vocab) * kLogitBytes};
}

OpWork RooflineCosts::step_work(std::span<const SeqWork> batch, TokenWorkMemo* memo) const {
  if (deployment_.attention_dp <= 1) return rank_work(batch, memo);
  thread_local RankSplit split;
  split.split(batch, deployment_.attention_dp);
  OpWork total;
  const double ranks = deployment_.attention_dp;
  for (int32_t r = 0; r < split.num_ranks(); ++r) {
    const OpWork rank = rank_work(split.rank(r), memo);
    total += OpWork{rank.flops / ranks, rank.bytes / ranks};
  }
  const double t = static_cast<double>(count_batch(batch).num_tokens);
  if (t > 0) {
    const double moe_layers = static_cast<double>(model_.num_moe_layers());
    const OpWork routed = routed_expert_work(t);
    total += OpWork{moe_layers * routed.flops, moe_layers * routed.bytes};
  }
  return total;
}

OpWork RooflineCosts::token_work(int64_t num_tokens) const {
  const auto t = static_cast<double>(num_tokens);
  OpWork total;
  total += embedding_work(t);
  total += final_norm_work(t);
  for (OpClass op : kTokenOpClasses) {
    const double layers = static_cast<double>(layers_running(model_, op));
    if (op == OpClass::embedding || op == OpClass::allreduce || layers <= 0) continue;
    const OpWork layer = layer_work(op, num_tokens);
    total += OpWork{layers * layer.flops, layers * layer.bytes};
  }
  return total;
}

RankSums rank_sums(std::span<const SeqWork> batch) {
  RankSums sums;
  for (const SeqWork& seq : batch) {
    if (seq.num_new_tokens <= 0) continue;
    sums.counts.num_tokens += seq.num_new_tokens;
    ++sums.counts.num_seqs;
    sums.counts.num_logit_rows += seq.num_logit_rows;
    (decode_rows(seq) > 0 ? sums.full.decode : sums.full.prefill)
        .add(seq.num_new_tokens, seq.num_context_tokens, 0);
  }
  return sums;
}

OpWork RooflineCosts::token_and_row_work(const BatchCounts& counts, TokenWorkMemo* memo) const {
  OpWork total;
  const double rows = static_cast<double>(counts.num_logit_rows);
  // The same sums in the same order whether remembered or not: bit-identical work.
  if (const OpWork* known = memo != nullptr ? memo->find(counts.num_tokens) : nullptr) {
    total = *known;
  } else {
    total = token_work(counts.num_tokens);
    if (memo != nullptr) memo->keep(counts.num_tokens, total);
  }
  if (rows > 0) {
    total += lm_head_work(rows);
    total += sampling_work(rows);
  }
  return total;
}

OpWork RooflineCosts::rank_work(std::span<const SeqWork> batch, TokenWorkMemo* memo) const {
  const BatchCounts counts = count_batch(batch);
  if (counts.num_seqs == 0) return {};
  OpWork total = token_and_row_work(counts, memo);
  const std::pair<const AttentionShape*, double> kinds[] = {
      {&full_attention_, static_cast<double>(model_.num_full_layers())},
      {&sliding_attention_, static_cast<double>(model_.num_sliding_layers())}};
  for (const auto& [shape, layers] : kinds) {
    if (layers <= 0) continue;
    const AttentionWork work = attention_work(*shape, batch);
    total += all_layers(work, layers);
  }
  if (const double layers = static_cast<double>(model_.num_linear_layers()); layers > 0) {
    const AttentionWork work = linear_attention_work(linear_attention_, batch);
    total += all_layers(work, layers);
  }
  return total;
}

bool RooflineCosts::prices_by_sums() const {
  return !full_attention_.mla && full_attention_.window == 0 && model_.num_sliding_layers() == 0 &&
         model_.num_linear_layers() == 0 && deployment_.attention_dp <= 1;
}

OpWork RooflineCosts::rank_work(const RankSums& sums, TokenWorkMemo* memo) const {
  assert(prices_by_sums());
  if (sums.counts.num_seqs == 0) return {};
  OpWork total = token_and_row_work(sums.counts, memo);
  if (const double layers = static_cast<double>(model_.num_full_layers()); layers > 0) {
    const AttentionWork work = gqa_work(full_attention_, sums.full);
    total += all_layers(work, layers);
  }
  return total;
}

double RooflineCosts::attention_layer_seconds(const OpWork& work) const {
  return std::max(work.flops / (gpu_.flops_bf16 * options_.attention_compute_efficiency),
                  work.bytes / (gpu_.hbm_bandwidth_Bps * options_.attention_memory_efficiency));
}

AttentionSeconds RooflineCosts::attention_seconds(std::span<const SeqWork> batch) const {
  // Per layer and GPU (roofline_attention.h), times the layers of each attention kind.
  AttentionSeconds seconds;
  const double full_layers = static_cast<double>(model_.num_full_layers());
  const double sliding_layers = static_cast<double>(model_.num_sliding_layers());
  if (full_layers > 0) {
    const AttentionWork work = attention_work(full_attention_, batch);
    seconds.prefill += full_layers * attention_layer_seconds(work.prefill);
    seconds.decode += full_layers * attention_layer_seconds(work.decode);
  }
  if (sliding_layers > 0) {
    const AttentionWork work = attention_work(sliding_attention_, batch);
    seconds.prefill += sliding_layers * attention_layer_seconds(work.prefill);
    seconds.decode += sliding_layers * attention_layer_seconds(work.decode);
  }
  const AttentionSeconds linear = linear_attention_seconds(batch);
  seconds.prefill += linear.prefill;
  seconds.decode += linear.decode;
  return seconds;
}

AttentionSeconds RooflineCosts::attention_seconds(const RankSums& sums) const {
  assert(prices_by_sums());
  // attention_seconds of the batch with no sliding or linear layers.
  // A part with no tokens does no work and takes no time: its two divisions are skipped.
  AttentionSeconds seconds;
  const double full_layers = static_cast<double>(model_.num_full_layers());
  if (full_layers > 0) {
    const AttentionWork work = gqa_work(full_attention_, sums.full);
    if (sums.full.prefill.num_new_tokens > 0) {
      seconds.prefill = full_layers * attention_layer_seconds(work.prefill);
    }
    if (sums.full.decode.num_new_tokens > 0) {
      seconds.decode = full_layers * attention_layer_seconds(work.decode);
    }
  }
  return seconds;
}

AttentionSeconds RooflineCosts::linear_attention_seconds(std::span<const SeqWork> batch) const {
  AttentionSeconds seconds;
  const double layers = static_cast<double>(model_.num_linear_layers());
  if (layers <= 0) return seconds;
  const AttentionWork work = linear_attention_work(linear_attention_, batch);
  seconds.prefill = layers * attention_layer_seconds(work.prefill);
  seconds.decode = layers * attention_layer_seconds(work.decode);
  return seconds;
}

double RooflineCosts::swap_seconds(int64_t num_blocks) const {
  const double bytes =
      static_cast<double>(num_blocks) * deployment_.block_size * kv_bytes_per_token_;
  return bytes / (gpu_.pcie_Bps * options_.pcie_efficiency);
}

}  // namespace tidal::perf
