// Requests whose leading tokens arrive computed (a disaggregated prefill replica's KV): the
// scheduler allocates their blocks at admission and schedules only the rest, under every
// batching policy; a recompute preemption computes them locally after all.
#include <gtest/gtest.h>

#include "engine/kv/block_manager.h"
#include "engine/sched/scheduler.h"
#include "sched_driver.h"

namespace tidal::sched {
namespace {

using testing::kv_pool;
using testing::request;

SchedulerConfig config_of(const std::string& policy) {
  SchedulerConfig c;
  c.policy = policy;
  c.max_num_batched_tokens = 2048;
  c.max_model_len = 2048;
  return c;
}

TEST(TransferredKv, AdmissionSchedulesOnlyTheLastTokenUnderEveryPolicy) {
  for (const std::string policy : {"continuous", "chunked_prefill", "prefill_first", "static"}) {
    SCOPED_TRACE(policy);
    kv::BlockManager kv(kv_pool(64));
    SchedulerConfig config = config_of(policy);
    config.static_batch_size = 1;
    Scheduler scheduler(config, kv);
    // 301 known tokens (a 300-token prompt and its first token), 300 of them transferred.
    ASSERT_EQ(scheduler.add_request(request(0, 301, 4), 0, 300), RejectReason::none);
    const StepPlan& plan = scheduler.schedule(0);
    ASSERT_EQ(plan.seqs.size(), 1u);
    EXPECT_EQ(plan.seqs[0].num_new_tokens, 1);
    EXPECT_EQ(plan.seqs[0].num_context_tokens, 300);
    EXPECT_TRUE(plan.seqs[0].samples);
    EXPECT_EQ(kv.block_table(0).size(), 19u);  // ceil(301 / 16)
    int64_t num_steps = 1;
    std::span<const RequestEvent> events = scheduler.update({}, 1);
    while (!events.empty() && !events[0].finished) {
      EXPECT_EQ(scheduler.schedule(num_steps).num_batched_tokens, 1);
      events = scheduler.update({}, ++num_steps);
    }
    EXPECT_EQ(num_steps, 4);  // one token a step, four output tokens
    EXPECT_EQ(kv.num_used_blocks(), 0);
  }
}

TEST(TransferredKv, ARecomputePreemptionComputesTheTransferredTokensLocally) {
  // 8 blocks of 16 tokens: request 1 takes 3, then request 0 (added later, so the first the
  // scheduler preempts) 5 with its transferred KV; request 1 growing pushes request 0 out.
  kv::BlockManagerConfig pool = kv_pool(8);
  pool.enable_prefix_caching = false;  // no cached copy of its blocks to find again
  kv::BlockManager kv(pool);
  SchedulerConfig config = config_of("chunked_prefill");
  config.watermark = 0.0;
  Scheduler scheduler(config, kv);
  ASSERT_EQ(scheduler.add_request(request(1, 40, 60), 0), RejectReason::none);
  ASSERT_EQ(scheduler.add_request(request(0, 65, 60), 0, 64), RejectReason::none);
  int64_t now = 0;
  bool preempted = false;
  int64_t recomputed_tokens = 0;
  for (int step = 0; step < 400 && scheduler.has_unfinished(); ++step) {
    const StepPlan& plan = scheduler.schedule(now);
    for (const Preemption& p : plan.preempted) preempted |= p.request_id == 0;
    for (const ScheduledSeq& seq : plan.seqs) {
      if (seq.request_id == 0 && preempted && seq.num_context_tokens == 0) {
        recomputed_tokens = seq.num_new_tokens;
      }
    }
    scheduler.update({}, ++now);
  }
  EXPECT_FALSE(scheduler.has_unfinished());
  ASSERT_TRUE(preempted);
  // Re-admitted with nothing computed: its 65 known tokens and what it produced since.
  EXPECT_GT(recomputed_tokens, 65);
  EXPECT_EQ(kv.num_used_blocks(), 0);
}

TEST(TransferredKv, MoreTransferredTokensThanThePromptIsALogicError) {
  kv::BlockManager kv(kv_pool(64));
  Scheduler scheduler(config_of("chunked_prefill"), kv);
  EXPECT_THROW(scheduler.add_request(request(0, 10, 4), 0, 11), std::logic_error);
  EXPECT_THROW(scheduler.add_request(request(1, 10, 4), 0, -1), std::logic_error);
}

}  // namespace
}  // namespace tidal::sched
