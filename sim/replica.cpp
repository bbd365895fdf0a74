#include "sim/replica.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "base/checked_time.h"
#include "base/input_error.h"
#include "sim/fleet/energy_model.h"
#include "sim/spec_class_acceptance.h"
#include "sim/spec_drafting.h"

namespace tidal::sim {

namespace {

// The pool's tiers, top first: its own CPU and disk tiers, the fleet's shared remote one.
std::unique_ptr<kv::TierStore> make_tier_store(const PoolSpec& spec,
                                               std::shared_ptr<kv::KvTier> remote_tier) {
  if (spec.kv_tiers.empty()) return nullptr;
  std::vector<std::shared_ptr<kv::KvTier>> tiers;  // [num tiers]
  for (const KvTierSpec& tier : spec.kv_tiers) {
    if (tier.config.kind != kv::TierKind::remote) {
      tiers.push_back(std::make_shared<kv::KvTier>(tier.config));
    } else if (remote_tier != nullptr) {
      tiers.push_back(remote_tier);
    } else {
      throw std::logic_error("sim::Replica: a pool with a remote tier and no shared store");
    }
  }
  return std::make_unique<kv::TierStore>(std::move(tiers));
}

}  // namespace

Replica::Replica(int32_t index, int32_t pool, const PoolSpec& spec, int64_t long_prefill_tokens,
                 uint64_t seed, std::shared_ptr<kv::KvTier> remote_tier,
                 std::span<const SloClass> slo_classes,
                 std::shared_ptr<const perf::StepWorkCounter> work_counter, bool step_by_step)
    : index_(index),
      pool_(pool),
      num_gpu_blocks_(spec.kv.num_gpu_blocks),
      tier_store_(make_tier_store(spec, std::move(remote_tier))),
      block_manager_(std::make_unique<kv::BlockManager>(spec.kv)),
      scheduler_(std::make_unique<sched::Scheduler>(spec.scheduler, *block_manager_)),
      step_model_(*spec.step_model),
      step_by_step_(step_by_step),
      long_prefill_tokens_(long_prefill_tokens),
      speculative_spec_(spec.speculative),
      speculative_(spec.speculative.enabled()),
      acceptance_(spec.speculative.acceptance_rate, seed),
      class_acceptance_(acceptance_by_class_index(spec.speculative, slo_classes)),
      proposal_(traces::derive_seed(seed, 1)),
      accepting_seed_(traces::derive_seed(seed, 2)) {
  block_manager_->attach_tiers(tier_store_.get());
  work_counter_ = work_counter != nullptr ? std::move(work_counter) : make_work_counter(spec);
  prices_by_sums_ =
      step_model_.prices_by_sums() || (work_counter_ != nullptr && work_counter_->prices_by_sums());
  repeats_by_sums_ = step_model_.prices_by_sums() &&
                     (work_counter_ == nullptr || work_counter_->prices_by_sums()) && !speculative_;
  if (spec.lora) {
    lora_spec_ = &*spec.lora;
    lora_ = std::make_unique<LoraCache>(
        spec.lora->max_cpu_loras, spec.lora->adapter_bytes / (spec.lora->load_gb_per_s * 1e9));
    peak_flops_ = spec.gpu_spec.flops_bf16;
    bandwidth_Bps_ = spec.gpu_spec.hbm_bandwidth_Bps;
  }
}

// The step's LoRA part: loading the adapters it holds that are not loaded, then the adapters'
// products (the shrink and expand GEMMs of every adapted projection): their FLOPs at the GPU's
// peak or each distinct adapter's weights read once at its bandwidth, whichever is longer.
double Replica::lora_step_seconds(const sched::StepPlan& plan, std::span<const Request> requests) {
  step_adapters_.clear();
  int64_t num_adapted_tokens = 0;
  for (const sched::ScheduledSeq& seq : plan.seqs) {
    const std::string& adapter = requests[static_cast<size_t>(seq.request_id)].adapter;
    if (adapter.empty()) continue;
    num_adapted_tokens += seq.num_new_tokens;
    const bool seen = std::any_of(step_adapters_.begin(), step_adapters_.end(),
                                  [&](const std::string* a) { return *a == adapter; });
    if (!seen) step_adapters_.push_back(&adapter);
  }
  if (step_adapters_.empty()) return 0.0;
  const double compute_s =
      static_cast<double>(num_adapted_tokens) * lora_spec_->flops_per_token_per_gpu / peak_flops_;
  const double read_s = static_cast<double>(step_adapters_.size()) *
                        lora_spec_->bytes_per_adapter_per_gpu / bandwidth_Bps_;
  return lora_->use(step_adapters_) + std::max(compute_s, read_s);
}

std::shared_ptr<const perf::StepWorkCounter> Replica::make_work_counter(const PoolSpec& spec) {
  const bool known = spec.model_spec.num_layers > 0 && spec.gpu_spec.flops_bf16 > 0 &&
                     spec.gpu_spec.hbm_bandwidth_Bps > 0;
  if (!known) return nullptr;
  return std::make_shared<const perf::StepWorkCounter>(spec.model_spec, spec.gpu_spec,
                                                       spec.deployment);
}

bool Replica::accepts_drafts(int64_t request_id) const {
  if (speculative_spec_.accepting_share >= 1.0) return true;
  traces::Rng rng(traces::derive_seed(accepting_seed_, static_cast<uint64_t>(request_id)));
  return rng.uniform01() < speculative_spec_.accepting_share;
}

void Replica::release() {
  released_scheduler_stats_ = scheduler_->stats();
  released_block_manager_stats_ = block_manager_->stats();
  released_tier_stats_ = tier_stats();
  scheduler_.reset();
  block_manager_.reset();
  tier_store_.reset();
  plan_ = nullptr;
  plan_repeats_ = false;
}

sched::SchedulerStats Replica::scheduler_stats() const {
  return released() ? released_scheduler_stats_ : scheduler_->stats();
}

kv::BlockManagerStats Replica::block_manager_stats() const {
  return released() ? released_block_manager_stats_ : block_manager_->stats();
}

kv::TierStoreStats Replica::tier_stats() const {
  if (released()) return released_tier_stats_;
  return tier_store_ ? tier_store_->stats() : kv::TierStoreStats{};
}

std::span<const sched::SeqOutput> Replica::step_outputs(std::span<const int32_t> request_class) {
  if (!speculative_) return {};
  if (!class_acceptance_.empty() && request_class.empty()) {
    throw std::logic_error("sim::Replica::step_outputs: acceptance_by_class without classes");
  }
  const sched::StepPlan& plan = *plan_;
  outputs_.resize(plan.seqs.size());
  // Only rates by decode step need each sequence's count of sampling steps.
  const bool by_step = !speculative_spec_.by_decode_step.empty();
  for (size_t i = 0; i < plan.seqs.size(); ++i) {
    const sched::ScheduledSeq& seq = plan.seqs[i];
    if (!seq.samples) {
      outputs_[i].num_accepted_tokens = 0;
      continue;
    }
    // This step is the sequence's decode step n (0: the end of its prefill); the proposal is
    // for step n + 1, made from the tokens it now has.
    const int32_t n = by_step ? decode_steps_[seq.request_id]++ : 1;
    double acceptance_rate = 0.0;
    if (accepts_drafts(seq.request_id)) {
      const std::optional<double> by_class =
          class_acceptance_.empty() ? std::nullopt
                                    : class_acceptance_[static_cast<size_t>(
                                          request_class[static_cast<size_t>(seq.request_id)])];
      acceptance_rate = by_class ? *by_class : speculative_spec_.acceptance_rate_at(std::max(n, 1));
    }
    outputs_[i].num_accepted_tokens =
        1 + acceptance_.sample_accepted(seq.num_spec_tokens, acceptance_rate);
    // The next step verifies at the context this one leaves: its known tokens and the drafts
    // accepted (the token sampled now is that step's new one).
    const int64_t next_context = seq.num_context_tokens + seq.num_new_tokens - seq.num_spec_tokens +
                                 outputs_[i].num_accepted_tokens - 1;
    const double proposal_rate = speculative_spec_.proposal_rate_at(n + 1, next_context);
    if (proposal_rate < 1.0) {
      scheduler_->set_spec_tokens(seq.request_id, proposal_.proposes(proposal_rate)
                                                      ? speculative_spec_.num_speculative_tokens
                                                      : 0);
    }
  }
  return outputs_;
}

// Head-of-line accounting of the planned step: only steps holding a long prefill beside other
// sequences need the second step-time call.
void Replica::account_hol(double step_s) {
  hol_.delay_s.clear();
  hol_.caused_s.clear();
  if (long_prefill_tokens_ <= 0 || work_.size() < 2) return;
  const auto is_long = [this](const perf::SeqWork& seq) {
    return fleet::is_long_prefill(seq.num_new_tokens, long_prefill_tokens_);
  };
  if (std::none_of(work_.begin(), work_.end(), is_long)) return;
  short_work_.clear();
  new_tokens_.resize(work_.size());
  for (size_t i = 0; i < work_.size(); ++i) {
    new_tokens_[i] = work_[i].num_new_tokens;
    if (!is_long(work_[i])) short_work_.push_back(work_[i]);
  }
  if (short_work_.empty()) return;  // every sequence a long prefill: none delayed
  hol_ = fleet::attribute_step_stretch(new_tokens_, long_prefill_tokens_, step_s,
                                       step_model_.step_seconds(short_work_));
}

// The load figures of the planned step: its batch, the KV blocks it holds, its work.
void Replica::account_load(const sched::StepPlan& plan, int64_t duration_ns) {
  const size_t batch = plan.seqs.size();
  if (load_.busy_ns_by_batch.size() <= batch) load_.busy_ns_by_batch.resize(batch + 1, 0);
  load_.busy_ns_by_batch[batch] += duration_ns;
  load_.busy_ns += duration_ns;
  const double kv_share = num_gpu_blocks_ > 0
                              ? static_cast<double>(block_manager_->num_used_blocks()) /
                                    static_cast<double>(num_gpu_blocks_)
                              : 0.0;
  load_.kv_share_ns += kv_share * static_cast<double>(duration_ns);
  load_.peak_kv_share = std::max(load_.peak_kv_share, kv_share);
  step_work_ = perf::OpWork{};
  const double seconds = static_cast<double>(duration_ns) / 1e9;
  if (!work_counter_) {
    load_.full_power_s += seconds;
    return;
  }
  step_work_ = work_counter_->prices_by_sums() ? work_counter_->step_work(step_sums_)
                                               : work_counter_->step_work(work_);
  load_.full_power_s +=
      fleet::step_utilisation(step_work_.flops, step_work_.bytes, work_counter_->peak_flops(),
                              work_counter_->peak_bandwidth_Bps(), seconds) *
      seconds;
  load_.flops += step_work_.flops;
  load_.bytes += step_work_.bytes;
  load_.peak_flops_seconds += work_counter_->peak_flops() * seconds;
  load_.peak_bytes_seconds += work_counter_->peak_bandwidth_Bps() * seconds;
}

namespace {

// Requests the scheduler has seen come and go: a plan made before a change is stale.
int64_t num_changes(const sched::SchedulerStats& stats) {
  return stats.num_added + stats.num_rejected + stats.num_removed;
}

}  // namespace

std::span<const sched::RequestEvent> Replica::apply_step(std::span<const sched::SeqOutput> outputs,
                                                         int64_t now_ns) {
  if (!step_by_step_ && outputs.empty()) {
    if (const auto events = scheduler_->repeat_step(now_ns)) {
      repeated_ = true;
      repeated_at_num_changes_ = num_changes(scheduler_->stats());
      return *events;
    }
  }
  return scheduler_->update(outputs, now_ns);
}

int64_t Replica::plan_step(int64_t now_ns, std::span<const Request> requests) {
  if (repeated_ && num_changes(scheduler_->stats()) != repeated_at_num_changes_) {
    throw std::logic_error(
        "sim::Replica: a request came or went between a repeated step and its plan");
  }
  const bool repeated = repeated_;
  const sched::StepPlan& plan = repeated ? scheduler_->plan() : scheduler_->schedule(now_ns);
  repeated_ = false;
  plan_repeats_ = repeated;
  plan_ = &plan;
  if (plan.empty()) return -1;
  // A repeated step's sums follow from the last step's, without a pass over the batch; where
  // the sums price it all, its per-sequence work is not needed either (and it holds no long
  // prefill: no head-of-line stretch).
  const bool sums_only = repeated && repeats_by_sums_;
  if (!sums_only) {
    work_.resize(plan.seqs.size());
    for (size_t i = 0; i < plan.seqs.size(); ++i) {
      const sched::ScheduledSeq& seq = plan.seqs[i];
      work_[i] = perf::SeqWork{seq.num_new_tokens, seq.num_context_tokens,
                               seq.samples ? 1 + seq.num_spec_tokens : 0};
    }
  }
  if (prices_by_sums_) {
    if (repeated) {
      step_sums_.full.advance_repeated_step();
    } else {
      step_sums_ = perf::rank_sums(work_);
    }
  }
  double seconds = step_model_.prices_by_sums() ? step_model_.summed_step_seconds(step_sums_)
                                                : step_model_.step_seconds(work_);
  if (sums_only) {
    hol_.delay_s.clear();
    hol_.caused_s.clear();
  } else {
    account_hol(seconds);
  }
  if (speculative_) {
    // Drafting: each draft position costs draft_cost_ratio target steps (FACTS.md's
    // speedup ~ tau / (1 + c k)), sequential before the verification step.
    int32_t max_spec = 0;
    for (const sched::ScheduledSeq& seq : plan.seqs)
      max_spec = std::max(max_spec, seq.num_spec_tokens);
    seconds *= 1.0 + speculative_spec_.draft_cost_ratio * max_spec;
    seconds += host_drafting_seconds(speculative_spec_, work_);
  }
  const int64_t num_swapped_blocks = plan.num_swap_out_blocks() + plan.num_swap_in_blocks();
  if (num_swapped_blocks > 0) seconds += step_model_.swap_seconds(num_swapped_blocks);
  if (lora_) seconds += lora_step_seconds(plan, requests);
  // Hostile figures (an inline GPU of 1e-300 TFLOP/s) must not overflow the clock.
  if (!(seconds <= base::kMaxSimulatedS)) {
    throw InputError(fmt::format("replica {}: a step of {:g} s, beyond the clock's range of {:g} s",
                                 index_, seconds, base::kMaxSimulatedS));
  }
  // Positive: rounding by adding a half is exact enough and avoids a libm call per step.
  const int64_t duration_ns = std::max<int64_t>(1, static_cast<int64_t>(seconds * 1e9 + 0.5));
  account_load(plan, duration_ns);
  return duration_ns;
}

}  // namespace tidal::sim
