// A test harness that plays an executor: it feeds a workload to a Scheduler, checks every plan
// against the configured limits and the block manager's invariants, and records per-request
// events. Step time is a fixed function of the plan, so runs are deterministic.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "engine/kv/block_manager.h"
#include "engine/sched/batch_policy.h"
#include "engine/sched/scheduler.h"
#include "traces/request.h"

namespace tidal::sched::testing {

struct RequestRecord {
  RejectReason reject = RejectReason::none;
  int64_t add_order = -1;  // position among accepted requests
  int64_t first_scheduled_ns = -1;
  int64_t first_token_ns = -1;
  int64_t finish_ns = -1;
  int64_t num_output_tokens = 0;
  int32_t num_finish_events = 0;
  int32_t num_first_token_events = 0;
  int32_t num_preemptions = 0;
  int64_t num_prefix_hit_tokens = 0;
};

struct DriveResult {
  std::vector<RequestRecord> records;          // by request id (ids are 0..n-1)
  std::vector<int64_t> first_scheduled_order;  // request ids in the order first scheduled
  int64_t num_steps = 0;
  int64_t num_preempted = 0;
  int64_t num_swapped_out_blocks = 0;
  uint64_t plan_digest = 0;  // hash of every plan, for determinism checks
  bool finished = false;     // everything finished within the step bound
};

// A GPU pool of `num_gpu_blocks` 16-token blocks (and an optional CPU swap pool).
inline kv::BlockManagerConfig kv_pool(int64_t num_gpu_blocks, int64_t num_cpu_blocks = 0) {
  kv::BlockManagerConfig c;
  c.block_size = 16;
  c.num_gpu_blocks = num_gpu_blocks;
  c.num_cpu_blocks = num_cpu_blocks;
  return c;
}

// The message validate() gives for `config` on a pool of 1,000 GPU blocks (and
// `num_cpu_blocks` CPU ones), or "" when it is valid.
inline std::string validation_error(const SchedulerConfig& config, int64_t num_cpu_blocks = 0) {
  try {
    validate(config, kv_pool(1000, num_cpu_blocks), "fleet.pools[0].scheduler");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A request arriving at 0 with only its sizes set.
inline Request request(int64_t id, int64_t prompt_tokens, int64_t output_tokens) {
  Request r;
  r.id = id;
  r.prompt_tokens = prompt_tokens;
  r.output_tokens = output_tokens;
  return r;
}

inline uint64_t digest_step(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

// Seeded workload: Poisson-like arrivals at `rate_per_s`, uniform prompt and output lengths;
// every third request shares one of four 16-token-block prefix families.
inline std::vector<Request> make_workload(uint64_t seed, int64_t num_requests, double rate_per_s,
                                          int64_t max_prompt, int64_t max_output) {
  std::mt19937_64 rng(seed);
  auto uniform01 = [&rng] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  std::vector<Request> requests;
  double t = 0.0;
  for (int64_t i = 0; i < num_requests; ++i) {
    t += -std::log(1.0 - uniform01()) / rate_per_s;
    Request r;
    r.id = i;
    r.arrival_s = t;
    r.prompt_tokens = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_prompt));
    r.output_tokens = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_output));
    if (i % 3 == 0) {
      const uint64_t family = rng() % 4;
      r.prefix_block_tokens = 16;
      for (int64_t b = 0; b < (r.prompt_tokens + 15) / 16; ++b) {
        r.prefix_blocks.push_back(family * 100000 + static_cast<uint64_t>(b));
      }
    }
    requests.push_back(r);
  }
  return requests;
}

class Driver {
 public:
  Driver(const SchedulerConfig& config, const kv::BlockManagerConfig& kv_config, uint64_t seed = 1)
      : config_(config), kv_(kv_config), scheduler_(config, kv_), rng_(seed) {}

  Scheduler& scheduler() { return scheduler_; }
  kv::BlockManager& block_manager() { return kv_; }
  // Called with every non-empty plan and its schedule() time, after the driver's own checks and
  // before update().
  void set_plan_observer(std::function<void(const StepPlan&, int64_t)> observer) {
    plan_observer_ = std::move(observer);
  }
  // Called after every update() with its events and the step's end time.
  void set_event_observer(std::function<void(std::span<const RequestEvent>, int64_t)> observer) {
    event_observer_ = std::move(observer);
  }

  // Runs until every request finished or `max_steps` steps ran. Speculative outputs accept a
  // uniform number of draft tokens.
  DriveResult run(const std::vector<Request>& requests, int64_t max_steps) {
    DriveResult result;
    result.records.resize(requests.size());
    size_t next = 0;
    int64_t now = 0;
    int64_t num_accepted = 0;
    const auto watermark_blocks =
        static_cast<int64_t>(config_.watermark * static_cast<double>(kv_.num_gpu_blocks()));
    while (result.num_steps < max_steps) {
      while (next < requests.size() && arrival_ns(requests[next]) <= now) {
        RequestRecord& rec = result.records[static_cast<size_t>(requests[next].id)];
        rec.reject = scheduler_.add_request(requests[next], now);
        if (rec.reject == RejectReason::none) rec.add_order = num_accepted++;
        ++next;
      }
      const bool batch_active = scheduler_.num_running() + scheduler_.num_swapped() > 0;
      const int64_t num_waiting_before = scheduler_.num_waiting();
      const StepPlan& plan = scheduler_.schedule(now);
      if (config_.policy == "static") {
        EXPECT_LE(scheduler_.num_running(), config_.static_batch_size);
        if (batch_active) {  // nobody left the waiting queue: no request joined the batch
          EXPECT_GE(scheduler_.num_waiting(), num_waiting_before)
              << "static batching admitted during a batch";
        }
      }
      if (plan.empty()) {
        int64_t wake = scheduler_.next_wakeup_ns();
        if (next < requests.size()) wake = std::min(wake, arrival_ns(requests[next]));
        if (wake == Scheduler::kNoWakeup) {
          EXPECT_FALSE(scheduler_.has_unfinished()) << "idle with unfinished requests";
          result.finished = !scheduler_.has_unfinished();
          break;
        }
        EXPECT_GT(wake, now);
        now = std::max(wake, now + 1);
        continue;
      }
      ++result.num_steps;
      check_plan(plan, watermark_blocks);
      if (plan_observer_) plan_observer_(plan, now);
      result.num_preempted += static_cast<int64_t>(plan.preempted.size());
      result.num_swapped_out_blocks += plan.num_swap_out_blocks();
      outputs_.clear();
      for (const ScheduledSeq& seq : plan.seqs) {
        int32_t produced = 0;
        if (seq.samples) {
          produced =
              1 + static_cast<int32_t>(rng_() % static_cast<uint64_t>(seq.num_spec_tokens + 1));
        }
        outputs_.push_back({produced});
        result.plan_digest = digest_step(result.plan_digest, static_cast<uint64_t>(seq.request_id));
        result.plan_digest =
            digest_step(result.plan_digest, static_cast<uint64_t>(seq.num_new_tokens));
        result.plan_digest = digest_step(result.plan_digest, static_cast<uint64_t>(produced));
      }
      for (const Preemption& p : plan.preempted) {
        result.plan_digest = digest_step(result.plan_digest, static_cast<uint64_t>(p.request_id));
      }
      const int64_t end = now + 1000000 + 1000 * plan.num_batched_tokens;
      const auto events = scheduler_.update(outputs_, end);
      EXPECT_EQ(events.size(), plan.seqs.size());
      if (event_observer_) event_observer_(events, end);
      for (const RequestEvent& e : events) {
        RequestRecord& rec = result.records[static_cast<size_t>(e.request_id)];
        if (e.first_scheduled) {
          EXPECT_EQ(rec.first_scheduled_ns, -1);
          rec.first_scheduled_ns = now;
          result.first_scheduled_order.push_back(e.request_id);
        }
        if (e.first_token) {
          ++rec.num_first_token_events;
          rec.first_token_ns = end;
        }
        rec.num_output_tokens += e.num_new_output_tokens;
        rec.num_preemptions = e.num_preemptions;
        rec.num_prefix_hit_tokens = e.num_prefix_hit_tokens;
        if (e.finished) {
          ++rec.num_finish_events;
          rec.finish_ns = end;
        }
      }
      EXPECT_EQ(kv_.check_invariants(), "");
      now = end;
    }
    if (!result.finished) result.finished = next == requests.size() && !scheduler_.has_unfinished();
    return result;
  }

 private:
  static int64_t arrival_ns(const Request& r) { return std::llround(r.arrival_s * 1e9); }

  void check_plan(const StepPlan& plan, int64_t watermark_blocks) {
    EXPECT_LE(static_cast<int64_t>(plan.seqs.size()), config_.max_num_seqs);
    EXPECT_LE(scheduler_.num_running(), config_.max_num_seqs);
    EXPECT_LE(plan.num_batched_tokens, config_.max_num_batched_tokens);
    int64_t num_tokens = 0;
    bool admitted = false;
    std::set<int64_t> ids;
    for (const ScheduledSeq& seq : plan.seqs) {
      EXPECT_TRUE(ids.insert(seq.request_id).second) << "request scheduled twice in a step";
      EXPECT_GE(seq.num_new_tokens, 1);
      EXPECT_LE(seq.num_context_tokens + seq.num_new_tokens, config_.max_model_len);
      EXPECT_GE(seq.num_spec_tokens, 0);
      EXPECT_LE(seq.num_spec_tokens, config_.num_speculative_tokens);
      if (seq.num_spec_tokens > 0) {
        EXPECT_LT(seq.num_spec_tokens, seq.num_new_tokens);
        EXPECT_TRUE(seq.samples);
      }
      EXPECT_GE(kv_.num_tokens(seq.request_id), seq.num_context_tokens + seq.num_new_tokens);
      num_tokens += seq.num_new_tokens;
      admitted = admitted || seq.first_scheduled;
      if (!batch_policy_traits(config_.policy).splits_prompts) {
        EXPECT_TRUE(seq.samples) << "a non-chunking policy split a prompt";
      }
    }
    EXPECT_EQ(num_tokens, plan.num_batched_tokens);
    if (admitted) {
      EXPECT_GE(kv_.num_free_blocks(), watermark_blocks) << "admission dipped below the watermark";
    }
    if (config_.admission == "guaranteed_no_evict") {
      EXPECT_TRUE(plan.preempted.empty()) << "guaranteed_no_evict preempted";
    }
    EXPECT_EQ(kv_.check_invariants(), "");
  }

  SchedulerConfig config_;
  kv::BlockManager kv_;
  Scheduler scheduler_;
  std::mt19937_64 rng_;
  std::vector<SeqOutput> outputs_;
  std::function<void(const StepPlan&, int64_t)> plan_observer_;
  std::function<void(std::span<const RequestEvent>, int64_t)> event_observer_;
};

}  // namespace tidal::sched::testing
