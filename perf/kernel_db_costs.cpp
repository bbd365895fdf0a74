#include "perf/kernel_db_costs.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "perf/kernel_db_policy.h"
#include "perf/weight_formats.h"

namespace tidal::perf {
namespace {

constexpr double kAllToAllBytes = 2.0;  // bf16 hidden states, as roofline_costs.cpp sends them
// The attention floor's shape: one head (and KV head) of 128, which every H100, H200 and B200
// engine folder of AIConfigurator's tables measures in both phases and both KV dtypes.
constexpr int64_t kFloorHeadDim = 128;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

CoverageKind worse(CoverageKind a, CoverageKind b) {
  return std::max(a, b);
}

// The table dtypes to look up, in order: a named one (KernelDbSpec) first, then the weights' own.
std::vector<std::string> named_first(const std::string& named, std::vector<std::string> own) {
  if (named.empty()) return own;
  std::erase(own, named);
  own.insert(own.begin(), named);
  return own;
}

}  // namespace

KernelDbCosts::KernelDbCosts(std::shared_ptr<const KernelDbTables> tables, const KernelDbSpec& spec,
                             const ModelSpec& model, const GpuSpec& gpu,
                             const Deployment& deployment, const RooflineOptions& fallback_options)
    : tables_(std::move(tables)),
      gemm_dtype_(spec.gemm_dtype),
      moe_dtype_(spec.moe_dtype),
      model_(model),
      deployment_(deployment),
      roofline_(model, gpu, deployment, fallback_options),
      scaling_(gpu, fallback_options) {
  resolve_gemms(scaling_, spec, fallback_options);
  resolve_attention(scaling_);
  if (deployment.tp > 1) allreduce_.emplace(*tables_, deployment.tp, scaling_);
  if (deployment.attention_dp > 1 && model.is_moe()) {
    alltoall_.emplace(*tables_, deployment.stage_gpus(), scaling_);
  }
  build_coverage();
}

// A quantized GEMM's table dtypes: the spec's, then the weights' (unquantized parts stay bf16).
std::vector<std::string> KernelDbCosts::gemm_dtypes(const WeightFormat& format) const {
  if (format.dtype == DType::bf16) return gemm_dtypes_for(format, model_);
  return named_first(gemm_dtype_, gemm_dtypes_for(format, model_));
}

void KernelDbCosts::resolve_gemms(const KernelScaling& scaling, const KernelDbSpec& spec,
                                  const RooflineOptions& options) {
  const WeightFormats formats = weight_formats(model_, deployment_.weight_dtype);
  const int64_t tp = deployment_.tp;
  const int64_t h = model_.hidden;
  const int64_t heads = model_.num_heads / tp;
  const int64_t up_projections = model_.gated_mlp ? 2 : 1;
  auto add = [&](GemmClass& c, const WeightFormat& format, int64_t n, int64_t k,
                 double share = 1.0) {
    c.gemms.emplace_back(*tables_, gemm_dtypes(format), n, k, scaling);
    c.shares.push_back(share);
  };
  const WeightFormat& attention = formats.attention;
  if (model_.is_mla()) {
    const MlaDims& m = model_.mla;
    const int64_t q_width = heads * (m.qk_nope_head_dim + m.qk_rope_head_dim);
    if (m.q_lora_rank > 0) {
      add(qkv_, attention, m.q_lora_rank, h);        // q_a, replicated
      add(qkv_, attention, q_width, m.q_lora_rank);  // q_b, split by heads
    } else {
      add(qkv_, attention, q_width, h);
    }
    add(qkv_, attention, m.kv_lora_rank + m.qk_rope_head_dim, h);  // kv_a, replicated
    add(o_, attention, h, heads * m.v_head_dim);
  } else {
    // In a hybrid, the full-attention layers' projections run in their share of the layers and
    // the linear layers' in theirs (LayerGemms).
    const double layers = static_cast<double>(model_.num_layers);
    const double attention_share = static_cast<double>(model_.num_attention_layers()) / layers;
    const int64_t kv_heads = kv_heads_per_gpu(model_, deployment_.tp);
    const int64_t q_outputs = (model_.attention_output_gate ? 2 : 1) * heads;
    add(qkv_, attention, (q_outputs + 2 * kv_heads) * model_.head_dim, h, attention_share);
    add(o_, attention, h, heads * model_.head_dim, attention_share);
    if (model_.num_linear_layers() > 0) {  // in_proj_qkvz, in_proj_ba and out_proj by heads
      const double linear_share = static_cast<double>(model_.num_linear_layers()) / layers;
      const LinearAttentionDims& l = model_.linear;
      add(qkv_, attention, (2 * l.key_width() + 2 * l.value_width()) / tp, h, linear_share);
      add(qkv_, attention, 2 * l.num_value_heads / tp, h, linear_share);
      add(o_, attention, h, l.value_width() / tp, linear_share);
    }
  }
  const int64_t width = ceil_div(model_.intermediate, tp);
  add(up_gate_, formats.dense_mlp, up_projections * width, h);
  add(down_, formats.dense_mlp, h, width);
  add(lm_head_, kUnquantizedWeight, ceil_div(model_.vocab, tp), h);
  if (model_.is_moe()) {
    add(router_, kUnquantizedWeight, model_.num_experts, h);
    if (model_.num_shared_experts > 0) {
      const int64_t shared = ceil_div(model_.num_shared_experts * model_.shared_expert_width(), tp);
      add(shared_experts_, formats.shared_experts, up_projections * shared, h);
      add(shared_experts_, formats.shared_experts, h, shared);
    }
    MoeKey wanted;
    wanted.hidden = h;
    wanted.inter = model_.moe_intermediate;
    wanted.topk = model_.num_active_experts;
    wanted.num_experts = model_.num_experts;
    wanted.tp = deployment_.moe_tp();
    wanted.ep = deployment_.ep;
    wanted.gated = model_.gated_mlp;
    const std::vector<std::string> dtypes =
        named_first(moe_dtype_, moe_dtypes_for(formats.experts, model_));
    experts_.emplace(*tables_, dtypes, wanted, scaling);
    const std::string same_chip = experts_->found() ? "" : same_chip_gpu(spec, tables_->folders);
    if (!same_chip.empty()) {
      const GpuSpec& other = find_gpu(same_chip, "kernel_db");
      KernelDbSpec other_spec = spec;
      other_spec.engine_version = tables_->folders.engine_version;
      same_chip_tables_ = kernel_db_tables(other_spec, other);
      same_chip_scaling_.emplace(other, options);
      const MoeLookup borrowed(*same_chip_tables_, dtypes, wanted, *same_chip_scaling_, scaling);
      if (borrowed.found()) {
        experts_ = borrowed;
      } else {
        same_chip_scaling_.reset();
        same_chip_tables_.reset();
      }
    }
  }
  for (GemmClass* c : {&qkv_, &o_, &up_gate_, &down_, &router_, &lm_head_, &shared_experts_}) {
    c->from_tables = std::all_of(c->gemms.begin(), c->gemms.end(),
                                 [](const GemmLookup& g) { return g.found(); });
  }
  experts_from_tables_ = experts_ && experts_->found() && shared_experts_.from_tables;
}

void KernelDbCosts::resolve_attention(const KernelScaling& scaling) {
  const std::string kv_dtype = kv_cache_dtype_for(deployment_.kv_dtype);
  if (model_.is_mla() || model_.num_linear_layers() > 0) {
    const AttentionKey one_head{kv_dtype, 1, 1, kFloorHeadDim, 0};
    auto exact = [&](AttentionLookup::Phase phase, std::optional<AttentionLookup>* floor) {
      AttentionLookup lookup(*tables_, phase, one_head, scaling);
      if (lookup.found() && lookup.exact()) floor->emplace(std::move(lookup));
    };
    exact(AttentionLookup::Phase::context, &floor_.context);
    exact(AttentionLookup::Phase::generation, &floor_.generation);
  }
  if (model_.is_mla()) {
    attention_fallback_ = "MLA: the tables hold no latent-attention kernels";
    return;
  }
  AttentionKey shape{kv_dtype, model_.num_heads / deployment_.tp,
                     kv_heads_per_gpu(model_, deployment_.tp), model_.head_dim, 0};
  auto resolve = [&](AttentionLayers& kind, double layers, int64_t window) {
    kind.layers = layers;
    if (layers <= 0) return;
    shape.window = window;
    kind.context.emplace(*tables_, AttentionLookup::Phase::context, shape, scaling);
    kind.generation.emplace(*tables_, AttentionLookup::Phase::generation, shape, scaling);
  };
  resolve(full_, static_cast<double>(model_.num_full_layers()), 0);
  resolve(sliding_, static_cast<double>(model_.num_sliding_layers()), model_.sliding_window);
  auto phase_found = [&](auto member) {
    for (const AttentionLayers* kind : {&full_, &sliding_}) {
      if (kind->layers > 0 && !(kind->*member)->found()) return false;
    }
    return true;
  };
  prefill_from_tables_ = phase_found(&AttentionLayers::context);
  decode_from_tables_ = phase_found(&AttentionLayers::generation);
}

const KernelDbCosts::GemmClass* KernelDbCosts::gemm_class(OpClass op) const {
  switch (op) {
    case OpClass::qkv_proj:
      return &qkv_;
    case OpClass::o_proj:
      return &o_;
    case OpClass::mlp_up_gate:
      return &up_gate_;
    case OpClass::mlp_down:
      return &down_;
    case OpClass::moe_router:
      return &router_;
    case OpClass::lm_head:
      return &lm_head_;
    default:
      return nullptr;
  }
}

double KernelDbCosts::token_seconds(OpClass op, int64_t num_tokens) const {
  if (num_tokens <= 0) return 0.0;
  const double t = static_cast<double>(num_tokens);
  const double layers = static_cast<double>(layers_running(model_, op));
  if (const GemmClass* c = gemm_class(op); c != nullptr && op != OpClass::lm_head) {
    if (!c->from_tables) return roofline_.token_seconds(op, num_tokens);
    double seconds = 0.0;
    for (size_t i = 0; i < c->gemms.size(); ++i) seconds += c->shares[i] * c->gemms[i].seconds(t);
    return layers * seconds;
  }
  switch (op) {
    case OpClass::moe_experts: {
      if (!experts_from_tables_) return roofline_.token_seconds(op, num_tokens);
      // With attention data parallelism the routed experts run over every rank's tokens
      // (shared_token_seconds); the shared experts stay in the rank.
      double seconds = deployment_.attention_dp == 1 ? routed_expert_seconds(t) : 0.0;
      for (const GemmLookup& g : shared_experts_.gemms) seconds += g.seconds(t);
      return layers * seconds;
    }
    case OpClass::allreduce:  // after attention and after the MLP: [t, hidden] bf16 each
      if (deployment_.tp <= 1 || !allreduce_->found()) {
        return roofline_.token_seconds(op, num_tokens);
      }
      return 2.0 * static_cast<double>(model_.num_layers) *
             allreduce_->seconds(t * static_cast<double>(model_.hidden));
    default:
      return roofline_.token_seconds(op, num_tokens);
  }
}

double KernelDbCosts::routed_expert_seconds(double num_tokens) const {
  const double seconds = experts_->seconds(num_tokens);
  if (deployment_.expert_load.balanced()) return seconds;
  // The rows are measured under uniform routing: scaled by the roofline's skewed over balanced.
  return seconds * roofline_.routed_expert_skew_factor(num_tokens);
}

double KernelDbCosts::shared_token_seconds(OpClass op, int64_t num_tokens) const {
  if (deployment_.attention_dp <= 1 || num_tokens <= 0) return 0.0;
  const double t = static_cast<double>(num_tokens);
  const double moe_layers = static_cast<double>(model_.num_moe_layers());
  switch (op) {
    case OpClass::moe_experts:
      // The tables' num_tokens is the whole EP group's (AIConfigurator's collectors route that
      // many tokens over all the experts and time one GPU's share).
      if (!experts_from_tables_) return roofline_.shared_token_seconds(op, num_tokens);
      return moe_layers * routed_expert_seconds(t);
    case OpClass::allreduce: {  // dispatch and combine
      if (!alltoall_ || !alltoall_->found()) return roofline_.shared_token_seconds(op, num_tokens);
      // Each GPU's send buffer: its num_tokens / num_gpus tokens to every GPU they go to.
      const double elements = roofline_.alltoall_bytes_per_gpu(t) / kAllToAllBytes *
                              static_cast<double>(deployment_.stage_gpus()) /
                              static_cast<double>(deployment_.stage_gpus() - 1);
      return moe_layers * 2.0 * alltoall_->seconds(elements);
    }
    default:
      return 0.0;
  }
}

double KernelDbCosts::seq_seconds(OpClass op, int64_t count) const {
  if (count <= 0) return 0.0;
  if (op == OpClass::lm_head && lm_head_.from_tables) {
    return lm_head_.gemms.front().seconds(static_cast<double>(count));
  }
  return roofline_.seq_seconds(op, count);
}

double KernelDbCosts::prefill_layer_seconds(const AttentionLayers& kind,
                                            std::span<const SeqWork> batch,
                                            int64_t num_prefill) const {
  const double n = static_cast<double>(num_prefill);
  double seconds = 0.0;
  for (const SeqWork& seq : batch) {
    if (seq.num_new_tokens <= 0 || decode_rows(seq) > 0) continue;
    const double c = static_cast<double>(seq.num_new_tokens);
    const double p = static_cast<double>(seq.num_context_tokens);
    seconds += kind.context->seconds(n, c) / n;
    if (p > 0) {
      seconds += std::max(0.0, kind.context->roofline(c, p) - kind.context->roofline(c, 0.0));
    }
  }
  return seconds;
}

AttentionSeconds KernelDbCosts::floor_layer_seconds(std::span<const SeqWork> batch,
                                                    int64_t num_prefill, int64_t num_decode,
                                                    double decode_context) const {
  AttentionSeconds floor;
  if (floor_.context && num_prefill > 0) {
    const double n = static_cast<double>(num_prefill);
    for (const SeqWork& seq : batch) {
      if (seq.num_new_tokens <= 0 || decode_rows(seq) > 0) continue;
      floor.prefill += floor_.context->seconds(n, static_cast<double>(seq.num_new_tokens)) / n;
    }
  }
  if (floor_.generation && num_decode > 0) {
    const double d = static_cast<double>(num_decode);
    floor.decode = floor_.generation->seconds(d, decode_context / d);
  }
  return floor;
}

AttentionSeconds KernelDbCosts::attention_seconds(std::span<const SeqWork> batch) const {
  int64_t num_prefill = 0;
  int64_t num_decode = 0;
  double decode_context = 0.0;
  for (const SeqWork& seq : batch) {
    if (seq.num_new_tokens <= 0) continue;
    // A verification of k drafts is 1 + k decode rows at its context (step_time_model.h).
    if (const int64_t rows = decode_rows(seq); rows > 0) {
      num_decode += rows;
      decode_context += static_cast<double>(rows * seq.num_context_tokens);
    } else {
      ++num_prefill;
    }
  }
  const AttentionSeconds floor =
      floor_layer_seconds(batch, num_prefill, num_decode, decode_context);
  // `layers` identical layers the roofline priced, each at least the floor.
  auto floored = [&](AttentionSeconds seconds, double layers) {
    seconds.prefill = std::max(seconds.prefill, layers * floor.prefill);
    seconds.decode = std::max(seconds.decode, layers * floor.decode);
    return seconds;
  };
  if (model_.is_mla()) {  // every attention layer latent (no linear-attention layers)
    return floored(roofline_.attention_seconds(batch),
                   static_cast<double>(model_.num_attention_layers()));
  }
  AttentionSeconds out;
  if (!prefill_from_tables_ || !decode_from_tables_) {
    const AttentionSeconds roofline = roofline_.attention_seconds(batch);
    if (!prefill_from_tables_) out.prefill = roofline.prefill;
    if (!decode_from_tables_) out.decode = roofline.decode;
  }
  // Linear-attention layers: the roofline's (the tables hold no Gated DeltaNet kernels).
  const AttentionSeconds linear = floored(roofline_.linear_attention_seconds(batch),
                                          static_cast<double>(model_.num_linear_layers()));
  if (prefill_from_tables_) out.prefill += linear.prefill;
  if (decode_from_tables_) out.decode += linear.decode;
  for (const AttentionLayers* kind : {&full_, &sliding_}) {
    if (kind->layers <= 0) continue;
    if (prefill_from_tables_ && num_prefill > 0) {
      out.prefill += kind->layers * prefill_layer_seconds(*kind, batch, num_prefill);
    }
    if (decode_from_tables_ && num_decode > 0) {
      const double d = static_cast<double>(num_decode);
      out.decode += kind->layers * kind->generation->seconds(d, decode_context / d);
    }
  }
  return out;
}

double KernelDbCosts::swap_seconds(int64_t num_blocks) const {
  return roofline_.swap_seconds(num_blocks);
}

void KernelDbCosts::build_coverage() {
  const KernelDbFolders& f = tables_->folders;
  coverage_.tables = f.kernel_gpu + "/" + f.engine_folder;
  coverage_.engine_version = f.engine_version;
  if (f.collective_gpu != f.kernel_gpu) {
    coverage_.tables += " (collectives: " + f.collective_gpu + "/" + f.engine_folder + ")";
  }
  coverage_.operators.resize(kNumOpClasses);
  for (int i = 0; i < kNumOpClasses; ++i) coverage_.operators[i].op = static_cast<OpClass>(i);
  auto set = [&](OpClass op, CoverageKind kind, std::string detail) {
    OperatorCoverage& c = coverage_.operators[static_cast<std::size_t>(op)];
    c.kind = kind;
    c.detail = std::move(detail);
  };
  auto gemms = [&](const GemmClass& c, CoverageKind* kind) {
    std::string detail;
    *kind = CoverageKind::table;
    for (const GemmLookup& g : c.gemms) {
      if (!detail.empty()) detail += "; ";
      detail += g.describe();
      *kind = worse(*kind, g.found() ? g.kind() : CoverageKind::roofline);
    }
    return detail;
  };
  for (OpClass op : {OpClass::qkv_proj, OpClass::o_proj, OpClass::mlp_up_gate, OpClass::mlp_down,
                     OpClass::moe_router, OpClass::lm_head}) {
    if (op != OpClass::lm_head && layers_running(model_, op) == 0) {
      set(op, CoverageKind::unused, "no layer of the model runs it");
      continue;
    }
    CoverageKind kind;
    std::string detail = gemms(*gemm_class(op), &kind);
    set(op, kind, std::move(detail));
  }
  if (!model_.is_moe()) {
    set(OpClass::moe_experts, CoverageKind::unused, "dense model");
  } else {
    CoverageKind kind = experts_->found() ? experts_->kind() : CoverageKind::roofline;
    std::string detail = experts_->describe();
    if (!shared_experts_.gemms.empty()) {
      CoverageKind shared;
      detail += "; shared experts: " + gemms(shared_experts_, &shared);
      kind = worse(kind, shared);
    }
    set(OpClass::moe_experts, kind, std::move(detail));
  }
  auto attention = [&](OpClass op, bool from_tables, auto member) {
    const std::optional<AttentionLookup>& floor =
        member == &AttentionLayers::context ? floor_.context : floor_.generation;
    const std::string floored =
        floor ? fmt::format(", each layer at least the one-head kernel ({})", floor->describe())
              : std::string();
    if (!attention_fallback_.empty()) {
      return set(op, CoverageKind::roofline, attention_fallback_ + floored);
    }
    CoverageKind kind = from_tables ? CoverageKind::table : CoverageKind::roofline;
    std::string detail;
    for (const AttentionLayers* layers : {&full_, &sliding_}) {
      if (layers->layers <= 0) continue;
      const AttentionLookup& lookup = *(layers->*member);
      if (!detail.empty()) detail += "; ";
      detail += fmt::format("{} layers: {}", layers->layers, lookup.describe());
      if (lookup.found()) kind = worse(kind, lookup.kind());
    }
    if (const int64_t linear = model_.num_linear_layers(); linear > 0) {
      detail += fmt::format(
          "; {} linear-attention layers: roofline (the tables hold no Gated "
          "DeltaNet kernels){}",
          linear, floored);
      kind = worse(kind, CoverageKind::roofline);
    }
    set(op, kind, std::move(detail));
  };
  attention(OpClass::attention_prefill, prefill_from_tables_, &AttentionLayers::context);
  attention(OpClass::attention_decode, decode_from_tables_, &AttentionLayers::generation);
  if (deployment_.tp <= 1 && !alltoall_) {
    set(OpClass::allreduce, CoverageKind::unused, "tp 1: no collectives");
  } else {
    CoverageKind kind = CoverageKind::unused;
    std::string detail;
    if (deployment_.tp > 1) {
      kind = allreduce_->found() ? CoverageKind::table : CoverageKind::roofline;
      detail = allreduce_->describe();
    }
    if (alltoall_) {
      const CoverageKind a2a = alltoall_->found() ? CoverageKind::table : CoverageKind::roofline;
      kind = kind == CoverageKind::unused ? a2a : worse(kind, a2a);
      detail += (detail.empty() ? "" : "; ") + std::string("MoE dispatch/combine: ") +
                alltoall_->describe();
    }
    set(OpClass::allreduce, kind, std::move(detail));
  }
  const char* elementwise = "elementwise: not in the kernel tables";
  for (OpClass op : {OpClass::embedding, OpClass::norm, OpClass::rope, OpClass::mlp_act,
                     OpClass::residual_add, OpClass::sampling}) {
    set(op, CoverageKind::roofline, elementwise);
  }
  if (layers_running(model_, OpClass::mlp_act) == 0) {
    set(OpClass::mlp_act, CoverageKind::unused, "no layer of the model runs it");
  }
  set(OpClass::cpu_overhead, CoverageKind::roofline, "host-side: not in the kernel tables");
}

}  // namespace tidal::perf
