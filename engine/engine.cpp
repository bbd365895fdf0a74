#include "engine/engine.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "base/input_error.h"
#include "engine/kv/flat_map.h"
#include "engine/verification.h"

namespace tidal::engine {

double SpecStats::acceptance_rate() const {
  return num_draft_tokens == 0
             ? 0.0
             : static_cast<double>(num_accepted_tokens) / static_cast<double>(num_draft_tokens);
}

double SpecStats::mean_accepted_length() const {
  return num_verifications == 0 ? 0.0
                                : static_cast<double>(num_accepted_tokens + num_verifications) /
                                      static_cast<double>(num_verifications);
}

int64_t num_gpu_blocks_for(const EngineConfig& config, const models::ModelConfig& model) {
  if (config.num_gpu_blocks > 0) return config.num_gpu_blocks;
  kernels::KvCacheSpec spec;
  spec.num_layers = model.num_layers;
  spec.num_kv_heads = model.num_kv_heads / config.tp;
  spec.head_dim = model.head_dim;
  spec.dtype = config.kv_dtype;
  const auto bytes_per_block =
      static_cast<int64_t>(static_cast<size_t>(config.block_size) *
                           (spec.data_bytes_per_token() + spec.scale_bytes_per_token()));
  const int64_t num_blocks = config.kv_cache_bytes / bytes_per_block;
  if (num_blocks < 1) {
    throw InputError("--kv-memory: " + std::to_string(config.kv_cache_bytes) +
                     " bytes hold no KV block of " + std::to_string(bytes_per_block) + " bytes");
  }
  return num_blocks;
}

void check_config(const EngineConfig& config, const models::ModelConfig& model) {
  validate(config, model);
  // cuda without --kv-blocks: the arena is sized from the GPU's free memory once it starts.
  if (config.backend == BackendKind::cuda && config.num_gpu_blocks == 0) return;
  EngineConfig effective = config;
  effective.scheduler = effective_scheduler_config(config, model);
  const kv::BlockManagerConfig kv_config{config.block_size, num_gpu_blocks_for(effective, model),
                                         config.num_cpu_blocks, config.enable_prefix_caching};
  kv::validate(kv_config, "engine.kv");
  sched::validate(effective.scheduler, kv_config, "engine.scheduler");
}

Engine::Engine(models::ModelWeights target, const EngineConfig& config,
               std::optional<models::ModelWeights> draft)
    : config_(config), ngram_(config.spec.ngram_min, config.spec.ngram_max) {
  const models::ModelConfig model = target.config;
  if (target.shard.world_size != 1) {
    throw std::invalid_argument("Engine: target weights must be unsharded");
  }
  check_config(config_, model);
  config_.scheduler = effective_scheduler_config(config_, model);
  // cuda without --kv-blocks: the executor sizes the arena from the GPU's free memory.
  const bool arena_from_gpu_memory =
      config_.backend == BackendKind::cuda && config_.num_gpu_blocks == 0;
  if (!arena_from_gpu_memory) config_.num_gpu_blocks = num_gpu_blocks_for(config_, model);
  kv::BlockManagerConfig kv_config{config_.block_size, config_.num_gpu_blocks,
                                   config_.num_cpu_blocks, config_.enable_prefix_caching};

  std::optional<models::ModelWeights> draft_weights;
  if (config_.spec.method == SpecMethod::draft) {
    if (config_.spec.draft_model.empty()) {
      draft_weights = truncate_layers(target, config_.spec.num_draft_layers);
    } else if (!draft) {
      throw std::invalid_argument("Engine: --spec " + spec_config_name(config_.spec) +
                                  " needs the draft model's weights");
    } else {
      draft_weights = std::move(draft);
    }
  }
  ExecutorConfig executor_config;
  executor_config.backend = config_.backend;
  executor_config.tp = config_.tp;
  executor_config.num_threads = config_.num_threads;
  executor_config.quant = config_.quant;
  executor_config.kv_dtype = config_.kv_dtype;
  executor_config.block_size = config_.block_size;
  executor_config.num_gpu_blocks = config_.num_gpu_blocks;
  executor_config.num_cpu_blocks = config_.num_cpu_blocks;
  executor_config.gpu_memory_utilization = config_.gpu_memory_utilization;
  executor_config.cuda_graphs = config_.cuda_graphs;
  // More blocks than max_num_seqs full-length sequences need would only hold cached prefixes.
  executor_config.max_gpu_blocks =
      int64_t{config_.scheduler.max_num_seqs} *
      ((config_.scheduler.max_model_len + config_.block_size - 1) / config_.block_size);
  executor_config.max_num_batched_tokens = config_.scheduler.max_num_batched_tokens;
  executor_ = std::make_unique<TensorParallelExecutor>(std::move(target), executor_config);
  if (arena_from_gpu_memory) {
    config_.num_gpu_blocks = executor_->device_kv_spec().num_blocks;
    kv_config.num_gpu_blocks = config_.num_gpu_blocks;
    kv::validate(kv_config, "engine.kv");
    sched::validate(config_.scheduler, kv_config, "engine.scheduler");
  }
  if (draft_weights) {
    draft_ = std::make_unique<DraftModel>(std::move(*draft_weights), model, config_.quant,
                                          config_.num_threads, config_.num_gpu_blocks,
                                          config_.block_size, config_.kv_dtype,
                                          config_.scheduler.max_model_len);
  }
  block_manager_ = std::make_unique<kv::BlockManager>(kv_config);
  scheduler_ = std::make_unique<sched::Scheduler>(config_.scheduler, *block_manager_);
  runner_ = std::make_unique<ModelRunner>(*executor_);
  memory_ = memory_report(*executor_, draft_.get());
}

Engine::~Engine() = default;

Engine::Sequence& Engine::sequence(int64_t request_id) {
  const auto it = sequences_.find(request_id);
  if (it == sequences_.end()) {
    throw std::logic_error("Engine: unknown request " + std::to_string(request_id));
  }
  return it->second;
}

std::span<const int32_t> Engine::output_tokens(int64_t request_id) const {
  const auto it = sequences_.find(request_id);
  if (it == sequences_.end()) {
    throw std::logic_error("Engine: unknown request " + std::to_string(request_id));
  }
  return std::span<const int32_t>(it->second.token_ids)
      .subspan(static_cast<size_t>(it->second.num_prompt_tokens));
}

sched::RejectReason Engine::add_request(const Request& request,
                                        std::vector<int32_t> prompt_token_ids, int64_t now_ns) {
  if (static_cast<int64_t>(prompt_token_ids.size()) != request.prompt_tokens) {
    throw std::invalid_argument("Engine::add_request: request " + std::to_string(request.id) +
                                " has " + std::to_string(request.prompt_tokens) +
                                " prompt tokens but " + std::to_string(prompt_token_ids.size()) +
                                " token ids");
  }
  const sched::RejectReason reason = scheduler_->add_request(request, now_ns);
  if (reason != sched::RejectReason::none) return reason;
  Sequence seq(kv::mix64(config_.seed ^ kv::mix64(static_cast<uint64_t>(request.id))));
  seq.num_prompt_tokens = request.prompt_tokens;
  seq.token_ids = std::move(prompt_token_ids);
  seq.token_ids.reserve(static_cast<size_t>(request.prompt_tokens + request.output_tokens));
  sequences_.insert_or_assign(request.id, std::move(seq));
  return reason;
}

void Engine::propose_ngrams() {
  const int32_t k = config_.scheduler.num_speculative_tokens;
  for (int64_t id : draft_candidates_) {
    Sequence& seq = sequence(id);
    ngram_.propose(seq.token_ids, k, seq.ngram_proposal);
    scheduler_->set_spec_tokens(id, static_cast<int32_t>(seq.ngram_proposal.size()));
  }
}

void Engine::draft_tokens(const sched::StepPlan& plan) {
  std::vector<DraftRequest> requests;
  std::vector<size_t> members;  // [requests.size()] index into plan.seqs
  for (size_t i = 0; i < plan.seqs.size(); ++i) {
    const sched::ScheduledSeq& s = plan.seqs[i];
    if (s.num_spec_tokens == 0) continue;
    requests.push_back(DraftRequest{s.request_id, known_tokens_[i],
                                    block_manager_->block_table(s.request_id), s.num_spec_tokens,
                                    &sequence(s.request_id).rng});
    members.push_back(i);
  }
  if (requests.empty()) return;
  std::vector<DraftProposal> proposals;
  draft_->propose(requests, config_.sampling, proposals);
  for (size_t j = 0; j < members.size(); ++j) {
    drafts_[members[j]] = std::move(proposals[j].tokens);
    draft_probs_[members[j]] = std::move(proposals[j].probs);
  }
}

void Engine::sample(const sched::StepPlan& plan, StepRecord& record) {
  const int64_t vocab = runner_->vocab_size();
  const bool greedy = config_.sampling.temperature == 0.0f;
  for (size_t i = 0; i < plan.seqs.size(); ++i) {
    const sched::ScheduledSeq& s = plan.seqs[i];
    std::vector<int32_t>& emitted = emitted_[i];
    emitted.clear();
    if (!s.samples) continue;
    const float* logits = runner_->sampled_logits(i);  // [1 + k, vocab]
    const int64_t k = s.num_spec_tokens;
    Sequence& seq = sequence(s.request_id);
    if (greedy) {
      verify_greedy(logits, vocab, drafts_[i], emitted);
    } else {
      probs_.resize(static_cast<size_t>((k + 1) * vocab));
      for (int64_t r = 0; r <= k; ++r) {
        kernels::sampling_distribution(logits + r * vocab, vocab, config_.sampling,
                                       probs_.data() + r * vocab);
      }
      verify_stochastic(probs_.data(), draft_probs_[i], vocab, drafts_[i], seq.rng, emitted);
    }
    outputs_[i].num_accepted_tokens = static_cast<int32_t>(emitted.size());
    if (k > 0) {
      const auto num_accepted = static_cast<int64_t>(emitted.size()) - 1;
      ++spec_stats_.num_verifications;
      spec_stats_.num_draft_tokens += k;
      spec_stats_.num_accepted_tokens += num_accepted;
      record.num_draft_tokens += k;
      record.num_accepted_tokens += num_accepted;
    }
  }
}

void Engine::apply_events(const sched::StepPlan& plan, std::span<const sched::RequestEvent> events,
                          StepRecord& record) {
  for (size_t i = 0; i < events.size(); ++i) {
    const sched::ScheduledSeq& s = plan.seqs[i];
    const sched::RequestEvent& event = events[i];
    Sequence& seq = sequence(event.request_id);
    seq.token_ids.insert(seq.token_ids.end(), emitted_[i].begin(), emitted_[i].end());
    if (draft_ && s.samples) {
      const int64_t num_rejected =
          s.num_spec_tokens - (static_cast<int64_t>(emitted_[i].size()) - 1);
      draft_->on_verified(s.request_id, s.num_context_tokens + s.num_new_tokens - num_rejected);
    }
    if (event.finished) {
      // A finished request keeps only its output tokens.
      seq.token_ids.erase(seq.token_ids.begin(), seq.token_ids.begin() + seq.num_prompt_tokens);
      seq.token_ids.shrink_to_fit();
      seq.num_prompt_tokens = 0;
      draft_candidates_.erase(event.request_id);
      seq.ngram_proposal = {};
      if (draft_) draft_->forget(event.request_id);
    }
  }
  record.events.assign(events.begin(), events.end());
}

bool Engine::step(Clock& clock, StepRecord& record) {
  record = StepRecord{};
  record.start_ns = clock.now_ns();
  if (config_.spec.method == SpecMethod::ngram) {
    propose_ngrams();
    record.draft_ns = clock.now_ns() - record.start_ns;
  }
  const sched::StepPlan& plan = scheduler_->schedule(record.start_ns);
  if (plan.empty()) return false;
  const int64_t execute_start_ns = clock.now_ns();

  for (const sched::Preemption& p : plan.preempted) {
    if (!p.swapped) draft_candidates_.erase(p.request_id);
    if (draft_) draft_->forget(p.request_id);
  }
  executor_->swap_out(plan.swap_out);
  executor_->swap_in(plan.swap_in);
  if (!block_manager_->cow_copies().empty()) {
    executor_->copy_device_blocks(block_manager_->cow_copies());
    block_manager_->clear_cow_copies();
  }
  record.seqs = plan.seqs;
  record.num_preempted = static_cast<int64_t>(plan.preempted.size());
  record.num_swap_out_blocks = plan.num_swap_out_blocks();
  record.num_swap_in_blocks = plan.num_swap_in_blocks();

  const size_t num_seqs = plan.seqs.size();
  known_tokens_.resize(num_seqs);
  drafts_.resize(num_seqs);
  draft_probs_.resize(num_seqs);
  emitted_.resize(num_seqs);
  outputs_.assign(num_seqs, sched::SeqOutput{});
  for (size_t i = 0; i < num_seqs; ++i) {
    const sched::ScheduledSeq& s = plan.seqs[i];
    Sequence& seq = sequence(s.request_id);
    draft_candidates_.insert(s.request_id);
    known_tokens_[i] = seq.token_ids;
    drafts_[i].clear();
    draft_probs_[i].clear();
    if (s.num_spec_tokens > 0 && config_.spec.method == SpecMethod::ngram) {
      if (static_cast<int64_t>(seq.ngram_proposal.size()) < s.num_spec_tokens) {
        throw std::logic_error("Engine: scheduler planned more drafts than proposed for request " +
                               std::to_string(s.request_id));
      }
      drafts_[i].assign(seq.ngram_proposal.begin(), seq.ngram_proposal.begin() + s.num_spec_tokens);
    }
    const bool decoding = static_cast<int64_t>(seq.token_ids.size()) > seq.num_prompt_tokens &&
                          s.num_new_tokens - s.num_spec_tokens == 1;
    (decoding ? record.num_decode_tokens : record.num_prefill_tokens) += s.num_new_tokens;
  }
  if (draft_) {
    const int64_t draft_start_ns = clock.now_ns();
    draft_tokens(plan);
    record.draft_ns = clock.now_ns() - draft_start_ns;
  }
  if (num_seqs > 0) {
    runner_->execute(plan, *block_manager_, known_tokens_, drafts_);
    sample(plan, record);
  }
  record.end_ns = clock.now_ns();
  record.execute_ns = record.end_ns - execute_start_ns;
  const std::span<const sched::RequestEvent> events = scheduler_->update(outputs_, record.end_ns);
  apply_events(plan, events, record);
  return true;
}

}  // namespace tidal::engine
