// The engine: the scheduler shared with the simulator, driving real execution. One step is
//
//   plan = scheduler.schedule(now)          // the very plans the simulator would see
//   runner.execute(plan)                    // block copies, drafting, forward, sampling
//   scheduler.update(outputs, now)          // tokens produced, KV rolled back, requests done
//
// KV lives in one arena per rank whose block ids are the block manager's; swap preemption
// copies blocks to a host arena and back. Speculative tokens enter through the normal scheduler
// path (ScheduledSeq::num_spec_tokens) and are verified in that same step; rejected ones are
// rolled back by the scheduler truncating the block table. Outputs always have the request's
// output_tokens tokens: there is no end-of-sequence token.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "engine/clock.h"
#include "engine/draft_model.h"
#include "engine/engine_config.h"
#include "engine/kv/block_manager.h"
#include "engine/memory_report.h"
#include "engine/model_runner.h"
#include "engine/ngram_drafter.h"
#include "engine/sched/scheduler.h"
#include "engine/tensor_parallel_executor.h"
#include "kernels/sampling.h"
#include "models/model_weights.h"
#include "traces/request.h"

namespace tidal::engine {

// What one executed step did (steps.csv is written from these).
struct StepRecord {
  int64_t start_ns = 0;    // the n-gram lookups (ngram speculation), else schedule()
  int64_t end_ns = 0;      // when update() was called, after execution
  int64_t execute_ns = 0;  // block copies + drafting + forward + sampling
  // Drafting: the n-gram lookups before the plan (outside execute_ns) or the draft model's
  // forwards (inside it).
  int64_t draft_ns = 0;
  std::vector<sched::ScheduledSeq> seqs;  // the plan's sequences
  int64_t num_prefill_tokens = 0;         // new tokens of sequences still reading their prompt (or
                                          // recomputing after preemption)
  int64_t num_decode_tokens = 0;          // new tokens of sequences generating (1 + drafts each)
  int64_t num_preempted = 0;
  int64_t num_swap_out_blocks = 0;
  int64_t num_swap_in_blocks = 0;
  int64_t num_draft_tokens = 0;             // drafts verified this step
  int64_t num_accepted_tokens = 0;          // of which accepted
  std::vector<sched::RequestEvent> events;  // [seqs.size()] as update() returned them
};

// Speculative decoding outcome over the engine's life.
struct SpecStats {
  int64_t num_verifications = 0;    // (sequence, step) pairs that verified >= 1 draft
  int64_t num_draft_tokens = 0;     // drafts verified
  int64_t num_accepted_tokens = 0;  // drafts accepted
  // accepted / drafted; 0 when nothing was drafted.
  double acceptance_rate() const;
  // Tokens emitted per verification (accepted drafts + the target's own token); 0 when none.
  double mean_accepted_length() const;
};

class Engine {
 public:
  // `target`: unsharded fp32 weights (consumed). `draft`: the draft model's fp32 weights, needed
  // when config.spec is draft:MODEL:k (draft:LAYERS:k truncates the target itself).
  // InputError for an impossible config.
  Engine(models::ModelWeights target, const EngineConfig& config,
         std::optional<models::ModelWeights> draft = std::nullopt);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Queues a request whose prompt is `prompt_token_ids` ([request.prompt_tokens]), or refuses it
  // with the scheduler's reason.
  sched::RejectReason add_request(const Request& request, std::vector<int32_t> prompt_token_ids,
                                  int64_t now_ns);

  // Schedules, executes and updates one step, reading times from `clock`. Returns false (and
  // leaves `record` empty) when the plan was empty: nothing can run until a request arrives or
  // next_wakeup_ns().
  bool step(Clock& clock, StepRecord& record);

  bool has_unfinished() const { return scheduler_->has_unfinished(); }
  int64_t next_wakeup_ns() const { return scheduler_->next_wakeup_ns(); }

  // Tokens generated so far for an accepted request (all of them once it finished).
  std::span<const int32_t> output_tokens(int64_t request_id) const;

  const EngineConfig& config() const { return config_; }
  const models::ModelConfig& model_config() const { return executor_->model_config(); }
  const sched::Scheduler& scheduler() const { return *scheduler_; }
  const kv::BlockManager& block_manager() const { return *block_manager_; }
  const SpecStats& spec_stats() const { return spec_stats_; }
  const MemoryReport& memory() const { return memory_; }

 private:
  struct Sequence {
    std::vector<int32_t> token_ids;  // [prompt + generated]; [generated] once finished
    int64_t num_prompt_tokens = 0;   // 0 once finished
    kernels::SamplingRng rng;
    std::vector<int32_t> ngram_proposal;  // proposed before schedule()
    explicit Sequence(uint64_t seed) : rng(seed) {}
  };

  Sequence& sequence(int64_t request_id);
  void propose_ngrams();
  void draft_tokens(const sched::StepPlan& plan);
  void sample(const sched::StepPlan& plan, StepRecord& record);
  void apply_events(const sched::StepPlan& plan, std::span<const sched::RequestEvent> events,
                    StepRecord& record);

  EngineConfig config_;
  std::unique_ptr<TensorParallelExecutor> executor_;
  std::unique_ptr<DraftModel> draft_;
  std::unique_ptr<kv::BlockManager> block_manager_;
  std::unique_ptr<sched::Scheduler> scheduler_;
  std::unique_ptr<ModelRunner> runner_;
  NgramDrafter ngram_;
  MemoryReport memory_;
  SpecStats spec_stats_;
  std::map<int64_t, Sequence> sequences_;  // every accepted request, by id
  // Requests running or swapped out: the scheduler may give them drafts, so the n-gram drafter
  // proposes for them before each step (and for no other, finished ones included).
  std::set<int64_t> draft_candidates_;

  // Per-step buffers, aligned with the plan's seqs.
  std::vector<std::span<const int32_t>> known_tokens_;
  std::vector<std::vector<int32_t>> drafts_;
  std::vector<std::vector<float>> draft_probs_;  // [k, vocab] each; empty: greedy or n-gram
  std::vector<std::vector<int32_t>> emitted_;
  std::vector<sched::SeqOutput> outputs_;
  std::vector<float> probs_;  // [k + 1, vocab] target distributions of one sequence
};

// Blocks of the device arena when config.num_gpu_blocks is 0: floor(kv_cache_bytes /
// (block_size * per-rank KV bytes per token, int8 scales included)). InputError when not one fits.
int64_t num_gpu_blocks_for(const EngineConfig& config, const models::ModelConfig& model);

// The checks the engine makes of `config` for `model` before it loads weights: validate(), and
// the KV and scheduler configs it will run with wherever the KV arena's size is known without a
// device (cpu, or cuda with num_gpu_blocks given; otherwise they are checked once the arena is
// sized). InputError naming the option or the config key ("engine.scheduler.max_num_seqs: ...").
void check_config(const EngineConfig& config, const models::ModelConfig& model);

}  // namespace tidal::engine
