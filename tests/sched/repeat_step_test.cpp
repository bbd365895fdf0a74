// Scheduler::repeat_step against update() + schedule(): two schedulers fed the same arrivals,
// one stepping through the full calls every time, the other repeating whenever repeat_step
// allows, must agree on every plan, event, counter and block after every step, under each
// batching policy, queue policy, preemption mode, with and without prefix caching, LoRA limits
// and schedule_ahead, on a KV pool small enough to preempt.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/kv/block_manager.h"
#include "engine/sched/scheduler.h"
#include "tests/sched/sched_driver.h"

namespace tidal::sched {
namespace {

using testing::kv_pool;
using testing::make_workload;
using testing::request;

struct Case {
  std::string policy;
  std::string queue_policy;
  std::string preemption;
  bool prefix_caching;
  int32_t max_loras_per_batch;
  bool schedule_ahead = false;
};

std::string case_name(const Case& c) {
  return c.policy + "/" + c.queue_policy + "/" + c.preemption +
         (c.prefix_caching ? "/prefix" : "/no-prefix") +
         (c.max_loras_per_batch > 0 ? "/lora" : "") + (c.schedule_ahead ? "/ahead" : "");
}

// Requests with priorities, tenants and adapters drawn from `seed` (the queue policies and LoRA
// limits read them).
std::vector<Request> workload(uint64_t seed) {
  std::vector<Request> requests = make_workload(seed, 160, 400.0, 90, 70);
  std::mt19937_64 rng(seed ^ 0x5eed);
  for (Request& r : requests) {
    r.priority = static_cast<int32_t>(rng() % 3);
    r.tenant = "tenant-" + std::to_string(rng() % 3);
    if (rng() % 2 == 0) r.adapter = "adapter-" + std::to_string(rng() % 4);
  }
  return requests;
}

void expect_same_plan(const StepPlan& a, const StepPlan& b, const std::string& where) {
  ASSERT_EQ(a.seqs.size(), b.seqs.size()) << where;
  for (size_t i = 0; i < a.seqs.size(); ++i) {
    const ScheduledSeq& x = a.seqs[i];
    const ScheduledSeq& y = b.seqs[i];
    EXPECT_EQ(x.request_id, y.request_id) << where << " seq " << i;
    EXPECT_EQ(x.num_new_tokens, y.num_new_tokens) << where << " seq " << i;
    EXPECT_EQ(x.num_context_tokens, y.num_context_tokens) << where << " seq " << i;
    EXPECT_EQ(x.num_spec_tokens, y.num_spec_tokens) << where << " seq " << i;
    EXPECT_EQ(x.num_prefix_hit_tokens, y.num_prefix_hit_tokens) << where << " seq " << i;
    EXPECT_EQ(x.samples, y.samples) << where << " seq " << i;
    EXPECT_EQ(x.first_scheduled, y.first_scheduled) << where << " seq " << i;
  }
  EXPECT_EQ(a.num_batched_tokens, b.num_batched_tokens) << where;
  EXPECT_EQ(a.preempted.size(), b.preempted.size()) << where;
  EXPECT_EQ(a.num_swap_in_blocks(), b.num_swap_in_blocks()) << where;
  EXPECT_EQ(a.num_swap_out_blocks(), b.num_swap_out_blocks()) << where;
}

void expect_same_events(std::span<const RequestEvent> a, std::span<const RequestEvent> b,
                        const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].request_id, b[i].request_id) << where;
    EXPECT_EQ(a[i].num_new_output_tokens, b[i].num_new_output_tokens) << where;
    EXPECT_EQ(a[i].first_scheduled, b[i].first_scheduled) << where;
    EXPECT_EQ(a[i].first_token, b[i].first_token) << where;
    EXPECT_EQ(a[i].finished, b[i].finished) << where;
    EXPECT_EQ(a[i].num_preemptions, b[i].num_preemptions) << where;
    EXPECT_EQ(a[i].num_prefix_hit_tokens, b[i].num_prefix_hit_tokens) << where;
  }
}

void expect_same_state(const Scheduler& a, const Scheduler& b, const kv::BlockManager& kv_a,
                       const kv::BlockManager& kv_b, const std::string& where) {
  EXPECT_EQ(a.num_waiting(), b.num_waiting()) << where;
  EXPECT_EQ(a.num_running(), b.num_running()) << where;
  EXPECT_EQ(a.num_swapped(), b.num_swapped()) << where;
  const SchedulerStats& x = a.stats();
  const SchedulerStats& y = b.stats();
  EXPECT_EQ(x.num_steps, y.num_steps) << where;
  EXPECT_EQ(x.num_finished, y.num_finished) << where;
  EXPECT_EQ(x.num_recompute_preemptions, y.num_recompute_preemptions) << where;
  EXPECT_EQ(x.num_swap_preemptions, y.num_swap_preemptions) << where;
  EXPECT_EQ(x.num_prefix_hit_tokens, y.num_prefix_hit_tokens) << where;
  EXPECT_EQ(x.num_scheduled_tokens, y.num_scheduled_tokens) << where;
  EXPECT_EQ(x.num_lora_skips, y.num_lora_skips) << where;
  EXPECT_EQ(kv_a.num_free_blocks(), kv_b.num_free_blocks()) << where;
  EXPECT_EQ(kv_a.num_cached_blocks(), kv_b.num_cached_blocks()) << where;
  EXPECT_EQ(kv_a.stats().num_evictions, kv_b.stats().num_evictions) << where;
  EXPECT_EQ(kv_a.stats().num_hit_blocks, kv_b.stats().num_hit_blocks) << where;
  EXPECT_EQ(kv_b.check_invariants(), "") << where;
  for (const ScheduledSeq& seq : a.plan().seqs) {
    const std::span<const int32_t> table_a = kv_a.block_table(seq.request_id);
    const std::span<const int32_t> table_b = kv_b.block_table(seq.request_id);
    EXPECT_TRUE(std::equal(table_a.begin(), table_a.end(), table_b.begin(), table_b.end()))
        << where << " request " << seq.request_id;
    EXPECT_EQ(kv_a.num_tokens(seq.request_id), kv_b.num_tokens(seq.request_id)) << where;
  }
}

int64_t arrival_ns(const Request& r) {
  return std::llround(r.arrival_s * 1e9);
}

// Steps both schedulers through `requests`; returns how many steps the second repeated.
int64_t run_side_by_side(const Case& c, const std::vector<Request>& requests) {
  SchedulerConfig config;
  config.policy = c.policy;
  config.queue_policy = c.queue_policy;
  config.preemption = c.preemption;
  config.max_num_seqs = 24;
  config.max_num_batched_tokens = c.policy == "continuous" || c.policy == "static" ? 8192 : 96;
  config.static_batch_size = 8;
  config.max_loras_per_batch = c.max_loras_per_batch;
  config.schedule_ahead = c.schedule_ahead;
  kv::BlockManagerConfig kv_config = kv_pool(48, c.preemption == "swap" ? 64 : 0);
  kv_config.enable_prefix_caching = c.prefix_caching;
  kv::BlockManager kv_a(kv_config);
  kv::BlockManager kv_b(kv_config);
  Scheduler full(config, kv_a);
  Scheduler repeating(config, kv_b);
  size_t next = 0;
  int64_t now = 0;
  int64_t num_repeats = 0;
  bool planned = false;  // `repeating` planned its next step in repeat_step
  for (int64_t step = 0; step < 20000; ++step) {
    const std::string where = case_name(c) + " step " + std::to_string(step);
    while (next < requests.size() && arrival_ns(requests[next]) <= now) {
      // A request arriving when a repeated step's plan is made would not be in it: the
      // repeating side then plans again, as a simulator would not repeat.
      EXPECT_EQ(full.add_request(requests[next], now), repeating.add_request(requests[next], now));
      ++next;
    }
    const StepPlan& plan_a = full.schedule(now);
    const StepPlan& plan_b = planned ? repeating.plan() : repeating.schedule(now);
    expect_same_plan(plan_a, plan_b, where);
    expect_same_state(full, repeating, kv_a, kv_b, where);
    if (::testing::Test::HasFailure()) return num_repeats;
    if (plan_a.empty()) {
      if (next == requests.size() && full.next_wakeup_ns() == Scheduler::kNoWakeup) break;
      int64_t wake = full.next_wakeup_ns();
      if (next < requests.size()) wake = std::min(wake, arrival_ns(requests[next]));
      now = std::max(wake, now + 1);
      planned = false;
      continue;
    }
    const int64_t end = now + 1000000 + 1000 * plan_a.num_batched_tokens;
    // The repeating side may only repeat when nothing arrives before its next plan.
    const bool arrival_due = next < requests.size() && arrival_ns(requests[next]) <= end;
    const std::span<const RequestEvent> events_a = full.update({}, end);
    std::optional<std::span<const RequestEvent>> events_b;
    if (!arrival_due) events_b = repeating.repeat_step(end);
    planned = events_b.has_value();
    if (planned) {
      ++num_repeats;
    } else {
      events_b = repeating.update({}, end);
    }
    expect_same_events(events_a, *events_b, where);
    now = end;
  }
  EXPECT_FALSE(full.has_unfinished()) << case_name(c);
  EXPECT_FALSE(repeating.has_unfinished()) << case_name(c);
  return num_repeats;
}

TEST(RepeatStep, AgreesWithUpdateAndScheduleUnderEveryPolicy) {
  std::vector<Case> cases;
  for (const char* policy : {"static", "continuous", "chunked_prefill", "prefill_first"}) {
    for (const char* queue_policy : {"fcfs", "priority", "fair_share"}) {
      // Static batching forms batches in arrival order only.
      if (std::string(policy) == "static" && std::string(queue_policy) != "fcfs") continue;
      for (const bool prefix_caching : {false, true}) {
        cases.push_back({policy, queue_policy, "recompute", prefix_caching, 0});
      }
    }
    if (std::string(policy) != "prefill_first") {  // prefill_first takes no swap
      cases.push_back({policy, "fcfs", "swap", true, 0});
    }
    cases.push_back({policy, "fcfs", "recompute", true, 2});
    if (std::string(policy) != "static") {  // static batching forms nothing ahead
      cases.push_back({policy, "fcfs", "recompute", true, 0, true});
      cases.push_back({policy, "priority", "recompute", false, 2, true});
    }
  }
  for (const Case& c : cases) {
    for (const uint64_t seed : {11u, 12u}) {
      const int64_t num_repeats = run_side_by_side(c, workload(seed));
      EXPECT_GT(num_repeats, 0) << case_name(c) << " never repeated a step";
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// One request through its prompt step and decodes on a fresh scheduler.
struct OneRequest {
  explicit OneRequest(int64_t prompt_tokens, int64_t output_tokens) : kv(kv_pool(100)), s({}, kv) {
    EXPECT_EQ(s.add_request(request(1, prompt_tokens, output_tokens), 0), RejectReason::none);
    s.schedule(0);
    EXPECT_FALSE(s.repeat_step(10).has_value()) << "a prompt step is no repeat";
    EXPECT_EQ(s.stats().num_steps, 1);
    EXPECT_TRUE(s.update({}, 10)[0].first_token);
    s.schedule(10);  // its first decode
  }
  kv::BlockManager kv;
  Scheduler s;
};

TEST(RepeatStep, RepeatsUntilAFinishIsNext) {
  OneRequest one(20, 3);
  const std::optional<std::span<const RequestEvent>> repeated = one.s.repeat_step(20);
  ASSERT_TRUE(repeated.has_value());
  ASSERT_EQ(repeated->size(), 1u);
  EXPECT_EQ((*repeated)[0].num_new_output_tokens, 1);
  EXPECT_FALSE((*repeated)[0].first_token);
  EXPECT_EQ(one.s.plan().seqs[0].num_context_tokens, 21);
  EXPECT_EQ(one.s.stats().num_steps, 3);
  // Its next token is its third and last: update() must finish it.
  EXPECT_FALSE(one.s.repeat_step(30).has_value());
  EXPECT_EQ(one.s.stats().num_steps, 3);
  EXPECT_THROW(one.s.repeat_step(15), std::logic_error);  // before its step started
  EXPECT_TRUE(one.s.update({}, 30)[0].finished);
}

TEST(RepeatStep, GrowsIntoANewBlockAsScheduleWould) {
  OneRequest one(15, 4);  // its first decode computes token 16; token 17 needs a second block
  const int64_t num_free_blocks = one.kv.num_free_blocks();
  ASSERT_TRUE(one.s.repeat_step(20).has_value());
  EXPECT_EQ(one.kv.num_free_blocks(), num_free_blocks - 1);
  EXPECT_EQ(one.s.block_table(1).size(), 2u);
  EXPECT_EQ(one.s.plan().seqs[0].num_context_tokens, 16);
}

TEST(RepeatStep, RefusesWhenGrowingWouldPreempt) {
  // Three blocks: A (15-token prompt) and B (16) take one each; B's first decode takes the
  // third; A's second decode then needs a block only preempting B can free.
  kv::BlockManager kv(kv_pool(3));
  Scheduler s(SchedulerConfig{}, kv);
  ASSERT_EQ(s.add_request(request(1, 15, 4), 0), RejectReason::none);
  ASSERT_EQ(s.add_request(request(2, 16, 3), 0), RejectReason::none);
  ASSERT_EQ(s.schedule(0).seqs.size(), 2u);
  s.update({}, 10);
  s.schedule(10);
  EXPECT_EQ(kv.num_free_blocks(), 0);
  EXPECT_FALSE(s.repeat_step(20).has_value());
  EXPECT_EQ(s.stats().num_steps, 2);
  s.update({}, 20);
  EXPECT_EQ(s.schedule(20).preempted.size(), 1u);  // what the repeat would have had to do
}

}  // namespace
}  // namespace tidal::sched
