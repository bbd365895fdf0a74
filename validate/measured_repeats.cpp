#include "validate/measured_repeats.h"

#include <fmt/format.h>

namespace tidal::validate {

std::string run_identity(const MeasuredRun& run) {
  // {:.17g} writes every double uniquely.
  return fmt::format("{}|{}|{}|{}x{}|c{}|{:.17g}|{:.17g}", run.engine, run.system, run.mode,
                     run.isl, run.osl, run.concurrency, run.ttft_ms, run.tpot_ms);
}

std::string architecture_identity(const perf::ModelSpec& spec) {
  return fmt::format("{} L{} h{} heads{}/{}x{} ffn{} vocab{} mla{} experts{}/{}+{}x{} dense{}",
                     spec.architecture, spec.num_layers, spec.hidden, spec.num_heads,
                     spec.num_kv_heads, spec.head_dim, spec.intermediate, spec.vocab,
                     spec.is_mla() ? spec.mla.kv_lora_rank : 0, spec.num_experts,
                     spec.num_active_experts, spec.num_shared_experts, spec.moe_intermediate,
                     spec.num_dense_layers);
}

}  // namespace tidal::validate
