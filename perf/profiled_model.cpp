#include "perf/profiled_model.h"

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/interpolation.h"
#include "perf/roofline_costs.h"
#include "perf/step_costs.h"

namespace tidal::perf {
namespace {

constexpr double kActivationBytes = 2.0;  // all-reduce messages carry bf16/fp16 activations

// Same bytes per element and same tensor path: bf16 and fp16 time alike.
bool same_timing(DType a, DType b) {
  auto canonical = [](DType d) { return d == DType::fp16 ? DType::bf16 : d; };
  return canonical(a) == canonical(b);
}

std::vector<double> as_doubles(const std::vector<int64_t>& values) {
  return std::vector<double>(values.begin(), values.end());
}

void check_compatible(const Profile& profile, const ModelSpec& model, const Deployment& deployment,
                      const std::string& json_path) {
  if (deployment.ep != 1 || deployment.attention_dp != 1) {
    throw InputError(fmt::format(
        "{}: a profile times one tensor-parallel group; ep {} and attention_dp {} need the "
        "roofline or kernel_db model",
        json_path, deployment.ep, deployment.attention_dp));
  }
  if (model.num_linear_layers() > 0) {
    throw InputError(fmt::format(
        "{}: a profile times every layer alike; {} mixes {} linear-attention layers with {} "
        "attention layers: use the roofline or kernel_db model",
        json_path, model.name, model.num_linear_layers(), model.num_attention_layers()));
  }
  if (profile.tp != deployment.tp) {
    throw InputError(fmt::format("{}: profile was measured at tp={}, the deployment has tp={}",
                                 json_path, profile.tp, deployment.tp));
  }
  if (!same_timing(profile.weight_dtype, deployment.weight_dtype)) {
    throw InputError(fmt::format("{}: profile was measured with {} weights, the deployment uses {}",
                                 json_path, dtype_name(profile.weight_dtype),
                                 dtype_name(deployment.weight_dtype)));
  }
  if (profile.attention_source == TimeSource::measured &&
      !same_timing(profile.kv_dtype, deployment.kv_dtype)) {
    throw InputError(
        fmt::format("{}: profile attention was measured with a {} KV cache, the "
                    "deployment uses {}",
                    json_path, dtype_name(profile.kv_dtype), dtype_name(deployment.kv_dtype)));
  }
  auto check_dim = [&](const char* name, int64_t in_profile, int64_t in_model) {
    if (in_profile != in_model) {
      throw InputError(fmt::format("{}: profile model {} has {} {}, {} has {}", json_path,
                                   profile.model.name, name, in_profile, model.name, in_model));
    }
  };
  check_dim("hidden", profile.model.hidden, model.hidden);
  check_dim("num_heads", profile.model.num_heads, model.num_heads);
  check_dim("num_kv_heads", profile.model.num_kv_heads, model.num_kv_heads);
  check_dim("intermediate", profile.model.intermediate, model.intermediate);
  check_dim("gated_mlp", profile.model.gated_mlp, model.gated_mlp);
}

class ProfiledCosts final : public StepCosts {
 public:
  ProfiledCosts(const Profile& profile, const ModelSpec& model, const GpuSpec& gpu,
                const Deployment& deployment, const std::string& json_path,
                const RooflineOptions& options)
      : model_(model), tp_(deployment.tp), roofline_(model, gpu, deployment, options) {
    check_compatible(profile, model, deployment, json_path);
    for (const auto& [op, table] : profile.operators) {
      if (table.source != TimeSource::measured) continue;
      Measured& measured = measured_[static_cast<std::size_t>(op)];
      measured.table = Table1D(as_doubles(table.num_tokens), table.seconds);
      measured.scope = table.scope;
    }
    auto require = [&](OpClass op) {
      const bool step_level =
          op == OpClass::embedding || op == OpClass::lm_head || op == OpClass::sampling;
      if ((step_level || layers_running(model, op) > 0) && !profile.operators.contains(op)) {
        throw InputError(fmt::format(
            "{}: profile has no operators.{}, which {} needs (give it a table or mark it "
            "{{\"scope\": \"layer\", \"source\": \"roofline\"}})",
            json_path, op_class_name(op), model.name));
      }
    };
    for (OpClass op : kTokenOpClasses) {
      if (op != OpClass::allreduce) require(op);
    }
    for (OpClass op : kRowOpClasses) require(op);
    if (profile.attention_source == TimeSource::measured) {
      const AttentionTables& a = profile.attention;
      // Per chunk token: a chunk's attention grows as chunk x (context + chunk / 2), so its time
      // per chunk token is bilinear in (chunk, context) where the time itself is not.
      std::vector<double> seconds_per_chunk_token = a.prefill_seconds;  // [chunks, contexts]
      const size_t num_contexts = a.prefill_context_tokens.size();
      for (size_t i = 0; i < seconds_per_chunk_token.size(); ++i) {
        seconds_per_chunk_token[i] /= static_cast<double>(a.prefill_chunk_tokens[i / num_contexts]);
      }
      prefill_per_token_ = Table2D(as_doubles(a.prefill_chunk_tokens),
                                   as_doubles(a.prefill_context_tokens), seconds_per_chunk_token);
      decode_ = Table2D(as_doubles(a.decode_batch_sizes), as_doubles(a.decode_context_tokens),
                        a.decode_seconds);
    }
    if (profile.allreduce.source == TimeSource::measured) {
      allreduce_ = Table1D(profile.allreduce.bytes, profile.allreduce.seconds);
    }
    if (profile.cpu_overhead.source == TimeSource::measured) {
      cpu_overhead_ =
          Table1D(as_doubles(profile.cpu_overhead.num_seqs), profile.cpu_overhead.seconds);
      operator_share_ = profile.cpu_overhead.share_of_operator_time;
    }
  }

  double token_seconds(OpClass op, int64_t num_tokens) const override {
    if (num_tokens <= 0) return 0.0;
    const double t = static_cast<double>(num_tokens);
    if (op == OpClass::allreduce) {
      if (tp_ <= 1) return 0.0;
      if (allreduce_.empty()) return roofline_.token_seconds(op, num_tokens);
      const double message_bytes = t * static_cast<double>(model_.hidden) * kActivationBytes;
      return 2.0 * static_cast<double>(model_.num_layers) * allreduce_(message_bytes);
    }
    return table_or_roofline(op, num_tokens,
                             [&] { return roofline_.token_seconds(op, num_tokens); });
  }

  double seq_seconds(OpClass op, int64_t count) const override {
    if (count <= 0) return 0.0;
    if (op == OpClass::cpu_overhead) {
      return cpu_overhead_.empty() ? roofline_.seq_seconds(op, count)
                                   : cpu_overhead_(static_cast<double>(count));
    }
    return table_or_roofline(op, count, [&] { return roofline_.seq_seconds(op, count); });
  }

  AttentionSeconds attention_seconds(std::span<const SeqWork> batch) const override {
    if (prefill_per_token_.empty()) return roofline_.attention_seconds(batch);
    double prefill = 0.0;
    double decode_context = 0.0;
    int64_t num_decode = 0;
    for (const SeqWork& seq : batch) {
      if (seq.num_new_tokens <= 0) continue;
      if (is_decode(seq)) {
        decode_context += static_cast<double>(seq.num_context_tokens);
        ++num_decode;
      } else {
        const auto chunk = static_cast<double>(seq.num_new_tokens);
        prefill += chunk * prefill_per_token_(chunk, static_cast<double>(seq.num_context_tokens));
      }
    }
    const double layers = static_cast<double>(model_.num_layers);
    AttentionSeconds out;
    out.prefill = layers * prefill;
    if (num_decode > 0) {
      out.decode = layers * decode_(static_cast<double>(num_decode),
                                    decode_context / static_cast<double>(num_decode));
    }
    return out;
  }

  double swap_seconds(int64_t num_blocks) const override {
    return roofline_.swap_seconds(num_blocks);
  }

  double operator_share() const override { return operator_share_; }

 private:
  struct Measured {
    Table1D table;
    OpScope scope = OpScope::layer;
  };

  template <typename Fallback>
  double table_or_roofline(OpClass op, int64_t count, Fallback fallback) const {
    const Measured& measured = measured_[static_cast<std::size_t>(op)];
    if (measured.table.empty()) return fallback();
    const double seconds = measured.table(static_cast<double>(count));
    return measured.scope == OpScope::layer
               ? static_cast<double>(layers_running(model_, op)) * seconds
               : seconds;
  }

  ModelSpec model_;
  int32_t tp_;
  RooflineCosts roofline_;
  std::array<Measured, kNumOpClasses> measured_;  // empty table: roofline
  Table2D prefill_per_token_;    // [chunk, context] seconds / chunk tokens; empty: roofline
  Table2D decode_;               // [batch, context]
  Table1D allreduce_;            // over bytes; empty: roofline
  Table1D cpu_overhead_;         // over num_seqs; empty: roofline
  double operator_share_ = 0.0;  // cpu_overhead's share of the operators' time
};

}  // namespace

std::unique_ptr<StepTimeModel> make_profiled_model(const Profile& profile, const ModelSpec& model,
                                                   const GpuSpec& gpu, const Deployment& deployment,
                                                   const std::string& json_path,
                                                   const RooflineOptions& options) {
  validate_profile(profile, json_path);
  return std::make_unique<TabulatedStepModel>(
      std::make_unique<ProfiledCosts>(profile, model, gpu, deployment, json_path, options),
      options.max_precomputed_tokens, options.max_precomputed_seqs);
}

}  // namespace tidal::perf
