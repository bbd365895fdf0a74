#include "engine/sched/batch_policy.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/sched/scheduler.h"
#include "tests/sched/sched_driver.h"

namespace tidal::sched {
namespace {

using testing::Driver;
using testing::DriveResult;
using testing::kv_pool;
using testing::make_workload;
using testing::request;

struct Combo {
  const char* policy;
  const char* admission;
  const char* preemption;
  int32_t num_speculative_tokens;
};

// Every policy x admission x preemption combination, with and without speculation, over a
// seeded random workload on a small KV pool: the driver checks every plan against every limit
// (sequences, batched tokens, max_model_len, watermark on admission, no admission inside a
// static batch and none larger than its size, no preemption under guaranteed_no_evict, block
// invariants); here we check that
// no request starves (all finish, in bounded steps), that each finishes exactly once with its
// exact output, that FCFS holds (first scheduled in arrival order) and that all blocks return.
TEST(BatchPolicy, EveryPlanRespectsEveryLimitAndEveryRequestFinishesOnce) {
  std::vector<Combo> combos;
  for (const char* policy : {"static", "continuous", "chunked_prefill"}) {
    for (const char* admission : {"max_utilization", "guaranteed_no_evict"}) {
      for (const char* preemption : {"recompute", "swap"}) {
        for (const int32_t k : {0, 3}) combos.push_back({policy, admission, preemption, k});
      }
    }
  }
  uint64_t seed = 100;
  for (const Combo& combo : combos) {
    SCOPED_TRACE(std::string(combo.policy) + "/" + combo.admission + "/" + combo.preemption +
                 "/k=" + std::to_string(combo.num_speculative_tokens));
    SchedulerConfig c;
    c.policy = combo.policy;
    c.admission = combo.admission;
    c.preemption = combo.preemption;
    c.num_speculative_tokens = combo.num_speculative_tokens;
    c.max_num_seqs = 24;
    c.max_model_len = 1024;
    c.max_num_batched_tokens = c.policy == std::string("chunked_prefill") ? 192 : 4096;
    c.watermark = 0.05;
    c.static_batch_size = 8;
    c.static_batch_timeout_s = 0.01;
    auto requests = make_workload(seed++, 400, 200.0, 500, 200);
    requests.push_back(request(400, 1024 - 10, 10));  // longest allowed prompt
    requests.back().arrival_s = requests[399].arrival_s;
    requests.push_back(request(401, 1, 1));  // shortest
    requests.back().arrival_s = requests[399].arrival_s;
    Driver driver(c, kv_pool(160, 160));
    const DriveResult result = driver.run(requests, 100000);
    ASSERT_TRUE(result.finished) << "requests starved or the step bound was hit";
    std::vector<int64_t> by_add_order;
    for (const Request& r : requests) {
      const auto& rec = result.records[static_cast<size_t>(r.id)];
      ASSERT_EQ(rec.reject, RejectReason::none) << r.id;
      EXPECT_EQ(rec.num_finish_events, 1) << r.id;
      EXPECT_EQ(rec.num_output_tokens, r.output_tokens) << r.id;
      by_add_order.push_back(r.id);
    }
    EXPECT_EQ(result.first_scheduled_order, by_add_order) << "admission was not FCFS";
    EXPECT_EQ(driver.block_manager().num_free_blocks(), 160);
    EXPECT_EQ(driver.block_manager().num_free_cpu_blocks(), 160);
    EXPECT_EQ(driver.block_manager().num_requests(), 0);
    if (combo.policy == std::string("static")) {
      EXPECT_EQ(result.num_preempted, 0) << "a static batch reserves its padded KV up front";
    } else if (combo.admission == std::string("max_utilization")) {
      EXPECT_GT(result.num_preempted, 0) << "the pool was meant to run dry";
      if (combo.preemption == std::string("swap")) {
        EXPECT_GT(result.num_swapped_out_blocks, 0);
      }
    }
  }
}

TEST(BatchPolicy, StaticFormsFullBatchesOrWaitsForTheTimeout) {
  kv::BlockManager kv(kv_pool(1000));
  SchedulerConfig c;
  c.policy = "static";
  c.static_batch_size = 3;
  c.static_batch_timeout_s = 0.5;
  Scheduler s(c, kv);
  ASSERT_EQ(s.add_request(request(0, 10, 2), 0), RejectReason::none);
  ASSERT_EQ(s.add_request(request(1, 10, 4), 100), RejectReason::none);
  EXPECT_TRUE(s.schedule(200).empty());  // 2 of 3, timeout not reached
  EXPECT_EQ(s.next_wakeup_ns(), 500000000);
  EXPECT_EQ(s.schedule(500000000).seqs.size(), 2u);  // the timeout forms a batch of two
  EXPECT_EQ(s.next_wakeup_ns(), Scheduler::kNoWakeup);
  s.update({}, 500000001);
  // New arrivals wait for the whole batch, even after its first request finished.
  for (int64_t id = 2; id < 6; ++id) {
    ASSERT_EQ(s.add_request(request(id, 10, 1), 500000001), RejectReason::none);
  }
  int64_t now = 500000001;
  std::vector<size_t> batch_sizes;
  while (s.has_unfinished()) {
    const StepPlan& plan = s.schedule(now);
    if (plan.empty()) {  // request 5 waits alone for its timeout
      ASSERT_EQ(s.next_wakeup_ns(), 500000001 + 500000000);
      now = s.next_wakeup_ns();
      continue;
    }
    batch_sizes.push_back(plan.seqs.size());
    s.update({}, ++now);
  }
  // {0, 1} until 0 finishes, {1} twice more, then {2, 3, 4} at once, then {5} alone.
  EXPECT_EQ(batch_sizes, (std::vector<size_t>{2, 1, 1, 3, 1}));
}

TEST(BatchPolicy, ContinuousKeepsHeadOfLineOrder) {
  kv::BlockManager kv(kv_pool(1000));
  SchedulerConfig c;
  c.max_model_len = 1000;
  c.max_num_batched_tokens = 1000;
  Scheduler s(c, kv);
  ASSERT_EQ(s.add_request(request(0, 600, 5), 0), RejectReason::none);
  ASSERT_EQ(s.add_request(request(1, 500, 5), 0), RejectReason::none);
  ASSERT_EQ(s.add_request(request(2, 10, 5), 0), RejectReason::none);
  const StepPlan& p1 = s.schedule(0);
  // 600 fits; 500 does not fit the 400 left, and the 10-token request behind it waits too.
  ASSERT_EQ(p1.seqs.size(), 1u);
  EXPECT_EQ(p1.seqs[0].request_id, 0);
  s.update({}, 1);
  const StepPlan& p2 = s.schedule(1);
  ASSERT_EQ(p2.seqs.size(), 3u);  // the decode, then both prompts whole
  EXPECT_EQ(p2.seqs[0].num_new_tokens, 1);
  EXPECT_EQ(p2.seqs[1].num_new_tokens, 500);
  EXPECT_EQ(p2.seqs[2].num_new_tokens, 10);
}

TEST(BatchPolicy, ChunkedPrefillNeverStallsDecodes) {
  kv::BlockManager kv(kv_pool(1000));
  SchedulerConfig c;
  c.policy = "chunked_prefill";
  c.max_num_batched_tokens = 256;
  Scheduler s(c, kv);
  for (int64_t id = 0; id < 3; ++id) {
    ASSERT_EQ(s.add_request(request(id, 50, 100), 0), RejectReason::none);
  }
  s.schedule(0);  // 3 x 50 prompt tokens
  s.update({}, 1);
  ASSERT_EQ(s.add_request(request(9, 1000, 5), 1), RejectReason::none);
  int64_t now = 1;
  int64_t prefilled = 0;
  while (prefilled < 1000) {
    const StepPlan& plan = s.schedule(now);
    ASSERT_EQ(plan.seqs.size(), 4u);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(plan.seqs[i].num_new_tokens, 1);  // decodes first
    EXPECT_EQ(plan.seqs[3].request_id, 9);
    EXPECT_EQ(plan.seqs[3].num_context_tokens, prefilled);
    EXPECT_EQ(plan.seqs[3].num_new_tokens, std::min<int64_t>(253, 1000 - prefilled));
    EXPECT_EQ(plan.seqs[3].samples, prefilled + plan.seqs[3].num_new_tokens == 1000);
    prefilled += plan.seqs[3].num_new_tokens;
    const auto events = s.update({}, ++now);
    EXPECT_EQ(events[3].first_token, prefilled == 1000);
    EXPECT_EQ(events[3].num_new_output_tokens, prefilled == 1000 ? 1 : 0);
  }
}

TEST(BatchPolicy, RegistryKnowsItsNames) {
  for (const std::string_view name : batch_policy_names()) {
    SchedulerConfig c;
    c.policy = std::string(name);
    EXPECT_NE(make_batch_policy(c), nullptr);
  }
  SchedulerConfig c;
  c.policy = "nope";
  EXPECT_THROW(make_batch_policy(c), std::logic_error);
}

}  // namespace
}  // namespace tidal::sched
