#include "engine/sched/config.h"

#include <algorithm>
#include <array>
#include <string>

#include "base/input_error.h"
#include "engine/sched/batch_policy.h"
#include "engine/sched/step_plan.h"

namespace tidal::sched {

namespace {

constexpr std::array<std::string_view, 2> kPreemptionNames{"recompute", "swap"};

std::string known_list(std::span<const std::string_view> names) {
  std::string list;
  for (const std::string_view name : names) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

void check_name(const std::string& value, std::span<const std::string_view> names,
                const std::string& key_path, const char* what) {
  if (std::find(names.begin(), names.end(), value) == names.end()) {
    throw InputError(key_path + ": unknown " + what + " '" + value +
                     "' (known: " + known_list(names) + ")");
  }
}

void check_at_least(int64_t value, int64_t minimum, const std::string& key_path) {
  if (value < minimum) {
    throw InputError(key_path + ": must be at least " + std::to_string(minimum) + " (got " +
                     std::to_string(value) + ")");
  }
}

void check_weight(double value, const std::string& key_path) {
  if (!(value > 0.0 && value <= 1e9)) {
    throw InputError(key_path + ": must be in (0, 1e9] (got " + std::to_string(value) + ")");
  }
}

}  // namespace

int64_t default_max_num_batched_tokens(std::string_view policy) {
  return policy == "chunked_prefill" ? kChunkedPrefillTokens
                                     : SchedulerConfig{}.max_num_batched_tokens;
}

std::span<const std::string_view> preemption_mode_names() {
  return kPreemptionNames;
}

void validate(const SchedulerConfig& config, const kv::BlockManagerConfig& kv,
              std::string_view json_path) {
  const std::string path(json_path);
  check_name(config.policy, batch_policy_names(), path + ".policy", "batching policy");
  check_name(config.admission, admission_policy_names(), path + ".admission", "admission policy");
  check_name(config.preemption, preemption_mode_names(), path + ".preemption", "preemption mode");
  check_at_least(config.max_num_seqs, 1, path + ".max_num_seqs");
  check_at_least(config.max_num_batched_tokens, 1, path + ".max_num_batched_tokens");
  check_at_least(config.max_model_len, 1, path + ".max_model_len");
  if (!(config.watermark >= 0.0 && config.watermark < 1.0)) {
    throw InputError(path + ".watermark: must be in [0, 1) (got " +
                     std::to_string(config.watermark) + ")");
  }
  check_at_least(config.static_batch_size, 1, path + ".static_batch_size");
  // Only static batching forms batches of static_batch_size; other policies ignore it.
  if (config.policy == "static" && config.static_batch_size > config.max_num_seqs) {
    throw InputError(path + ".static_batch_size: " + std::to_string(config.static_batch_size) +
                     " exceeds max_num_seqs " + std::to_string(config.max_num_seqs));
  }
  if (!(config.static_batch_timeout_s >= 0.0 && config.static_batch_timeout_s <= 1e9)) {
    throw InputError(path + ".static_batch_timeout_s: must be in [0, 1e9] seconds (got " +
                     std::to_string(config.static_batch_timeout_s) + ")");
  }
  check_at_least(config.num_speculative_tokens, 0, path + ".num_speculative_tokens");
  const BatchPolicyTraits traits = batch_policy_traits(config.policy);
  if (!traits.splits_prompts && config.max_num_batched_tokens < config.max_model_len) {
    throw InputError(
        path + ".max_num_batched_tokens: " + std::to_string(config.max_num_batched_tokens) +
        " is below max_model_len " + std::to_string(config.max_model_len) + "; the " +
        config.policy + " policy never splits a prompt (raise it or use chunked_prefill)");
  }
  if (config.preemption == "swap" && !traits.supports_swap) {
    throw InputError(path + ".preemption: swap is not supported by the " + config.policy +
                     " policy (use recompute)");
  }
  check_name(config.queue_policy, queue_policy_names(), path + ".queue_policy", "queue policy");
  if (config.policy == "static" && config.queue_policy != "fcfs") {
    throw InputError(path + ".queue_policy: static batching forms its batches in arrival order; " +
                     config.queue_policy + " needs another policy (or queue_policy fcfs)");
  }
  if (config.policy == "static" && config.schedule_ahead) {
    throw InputError(path +
                     ".schedule_ahead: static batching forms each batch when the one before "
                     "has finished; schedule_ahead needs another policy");
  }
  check_weight(config.fair_share_input_weight, path + ".fair_share_input_weight");
  check_weight(config.fair_share_output_weight, path + ".fair_share_output_weight");
  if (config.preemption == "swap" && kv.num_cpu_blocks < 1) {
    throw InputError(path +
                     ".preemption: swap needs a CPU block pool, but num_cpu_blocks is 0 (give "
                     "the pool CPU swap space or use recompute)");
  }
}

std::string_view reject_reason_name(RejectReason reason) {
  switch (reason) {
    case RejectReason::none:
      return "none";
    case RejectReason::duplicate_id:
      return "duplicate_id";
    case RejectReason::empty_prompt:
      return "empty_prompt";
    case RejectReason::no_output_tokens:
      return "no_output_tokens";
    case RejectReason::exceeds_max_model_len:
      return "exceeds_max_model_len";
    case RejectReason::exceeds_kv_capacity:
      return "exceeds_kv_capacity";
  }
  return "unknown";
}

}  // namespace tidal::sched
