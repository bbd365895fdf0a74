#include "perf/step_time_model.h"

#include <array>
#include <stdexcept>

namespace tidal::perf {
namespace {

constexpr std::array<std::string_view, kNumOpClasses> kOpClassNames{
    "embedding",    "norm",        "qkv_proj", "rope",      "attention_prefill", "attention_decode",
    "o_proj",       "mlp_up_gate", "mlp_act",  "mlp_down",  "moe_router",        "moe_experts",
    "residual_add", "lm_head",     "sampling", "allreduce", "cpu_overhead",
};

}  // namespace

std::string_view op_class_name(OpClass op) {
  return kOpClassNames[static_cast<std::size_t>(op)];
}

bool parse_op_class(std::string_view name, OpClass* op) {
  for (int i = 0; i < kNumOpClasses; ++i) {
    if (kOpClassNames[static_cast<std::size_t>(i)] == name) {
      *op = static_cast<OpClass>(i);
      return true;
    }
  }
  return false;
}

double StepTimeModel::summed_step_seconds(const RankSums& /*sums*/) const {
  throw std::logic_error("perf::StepTimeModel: summed_step_seconds of a model that prices batches");
}

double StepBreakdown::total_seconds() const {
  double total = 0.0;
  for (double s : seconds) total += s;
  return total;
}

}  // namespace tidal::perf
