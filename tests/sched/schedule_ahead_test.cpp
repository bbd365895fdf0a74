// schedule_ahead (engines that form each step while the one before it runs): a request added
// while a step runs joins the step after the next one, never the next; with nothing running it
// joins at once; repeat_step agrees; every policy that takes it still finishes every request
// once with its exact output; static batching refuses it.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/kv/block_manager.h"
#include "engine/sched/scheduler.h"
#include "tests/sched/sched_driver.h"

namespace tidal::sched {
namespace {

using testing::Driver;
using testing::DriveResult;
using testing::kv_pool;
using testing::make_workload;
using testing::request;
using testing::validation_error;

SchedulerConfig ahead_config(const std::string& policy, bool schedule_ahead) {
  SchedulerConfig c;
  c.policy = policy;
  c.schedule_ahead = schedule_ahead;
  return c;
}

bool plans(const StepPlan& plan, int64_t request_id) {
  for (const ScheduledSeq& seq : plan.seqs) {
    if (seq.request_id == request_id) return true;
  }
  return false;
}

// Request 1 runs alone (its prompt step, then decodes); request 2 arrives while a step runs.
// Returns the number of steps formed after its arrival that did not take it.
int64_t steps_request_two_waits(const std::string& policy, bool schedule_ahead) {
  kv::BlockManager kv(kv_pool(100));
  Scheduler s(ahead_config(policy, schedule_ahead), kv);
  EXPECT_EQ(s.add_request(request(1, 20, 10), 0), RejectReason::none);
  EXPECT_TRUE(plans(s.schedule(0), 1));  // nothing running: formed at once
  s.update({}, 10);
  s.schedule(10);
  EXPECT_EQ(s.add_request(request(2, 20, 10), 15), RejectReason::none);  // during that step
  int64_t num_waited = 0;
  for (int64_t now = 20; num_waited < 5; now += 10) {
    s.update({}, now);
    if (plans(s.schedule(now), 2)) break;
    ++num_waited;
  }
  return num_waited;
}

TEST(ScheduleAhead, AnArrivalDuringAStepJoinsTheStepAfterTheNext) {
  for (const char* policy : {"continuous", "chunked_prefill", "prefill_first"}) {
    SCOPED_TRACE(policy);
    EXPECT_EQ(steps_request_two_waits(policy, false), 0);
    EXPECT_EQ(steps_request_two_waits(policy, true), 1);
  }
}

TEST(ScheduleAhead, NothingRunningTakesAnArrivalAtOnce) {
  kv::BlockManager kv(kv_pool(100));
  Scheduler s(ahead_config("continuous", true), kv);
  ASSERT_EQ(s.add_request(request(1, 20, 1), 0), RejectReason::none);
  s.schedule(0);
  ASSERT_TRUE(s.update({}, 10)[0].finished);
  // Added after the last step was formed, but nothing was formed ahead of an idle scheduler.
  ASSERT_EQ(s.add_request(request(2, 20, 3), 12), RejectReason::none);
  EXPECT_TRUE(plans(s.schedule(12), 2));
}

TEST(ScheduleAhead, ArrivalsTogetherAreAllSeenByTheStepsThatFollow) {
  // Four prompts at once under a budget for two: the first step takes two, the next the rest
  // (they were there when the first was formed).
  kv::BlockManager kv(kv_pool(100));
  SchedulerConfig config = ahead_config("continuous", true);
  config.max_num_batched_tokens = 64;
  config.max_model_len = 64;
  Scheduler s(config, kv);
  for (int64_t id = 1; id <= 4; ++id) {
    ASSERT_EQ(s.add_request(request(id, 30, 5), 0), RejectReason::none);
  }
  EXPECT_EQ(s.schedule(0).seqs.size(), 2u);
  s.update({}, 10);
  const StepPlan& second = s.schedule(10);
  EXPECT_TRUE(plans(second, 3));
  EXPECT_TRUE(plans(second, 4));
}

TEST(ScheduleAhead, RepeatStepRepeatsPastAnUnseenArrivalOnlyOnce) {
  kv::BlockManager kv(kv_pool(100));
  Scheduler s(ahead_config("continuous", true), kv);
  ASSERT_EQ(s.add_request(request(1, 20, 10), 0), RejectReason::none);
  s.schedule(0);
  s.update({}, 10);
  s.schedule(10);  // request 1's first decode
  ASSERT_EQ(s.add_request(request(2, 20, 10), 15), RejectReason::none);
  // The step formed at 20 could not have seen request 2: a repeat of request 1 alone.
  ASSERT_TRUE(s.repeat_step(20).has_value());
  EXPECT_FALSE(plans(s.plan(), 2));
  // The step formed at 30 sees it: no repeat, and schedule() admits it.
  EXPECT_FALSE(s.repeat_step(30).has_value());
  s.update({}, 30);
  EXPECT_TRUE(plans(s.schedule(30), 2));
}

TEST(ScheduleAhead, EveryRequestFinishesOnceUnderEachPolicy) {
  for (const char* policy : {"continuous", "chunked_prefill", "prefill_first"}) {
    for (const char* queue_policy : {"fcfs", "priority", "fair_share"}) {
      SCOPED_TRACE(std::string(policy) + "/" + queue_policy);
      SchedulerConfig config = ahead_config(policy, true);
      config.queue_policy = queue_policy;
      config.max_num_seqs = 16;
      config.max_num_batched_tokens = std::string(policy) == "continuous" ? 8192 : 128;
      std::vector<Request> requests = make_workload(7, 200, 300.0, 120, 60);
      for (Request& r : requests) r.priority = static_cast<int32_t>(r.id % 3);
      Driver driver(config, kv_pool(64));
      const DriveResult result = driver.run(requests, 100000);
      ASSERT_TRUE(result.finished);
      for (const Request& r : requests) {
        const testing::RequestRecord& rec = result.records[static_cast<size_t>(r.id)];
        ASSERT_EQ(rec.reject, RejectReason::none) << r.id;
        EXPECT_EQ(rec.num_finish_events, 1) << r.id;
        EXPECT_EQ(rec.num_output_tokens, r.output_tokens) << r.id;
      }
      // The same inputs give the same plans.
      Driver again(config, kv_pool(64));
      EXPECT_EQ(again.run(requests, 100000).plan_digest, result.plan_digest);
    }
  }
}

TEST(ScheduleAhead, StaticBatchingRefusesIt) {
  SchedulerConfig config = ahead_config("static", true);
  EXPECT_EQ(validation_error(config),
            "fleet.pools[0].scheduler.schedule_ahead: static batching forms each batch when the "
            "one before has finished; schedule_ahead needs another policy");
}

}  // namespace
}  // namespace tidal::sched
