#include "engine/sched/scheduler.h"

#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "tests/sched/sched_driver.h"

namespace tidal::sched {
namespace {

using testing::Driver;
using testing::DriveResult;
using testing::kv_pool;
using testing::make_workload;
using testing::request;

// Every accepted request finished exactly once with exactly its output tokens.
void expect_conserved(const std::vector<Request>& requests, const DriveResult& result) {
  EXPECT_TRUE(result.finished);
  for (const Request& r : requests) {
    const auto& rec = result.records[static_cast<size_t>(r.id)];
    if (rec.reject != RejectReason::none) continue;
    EXPECT_EQ(rec.num_finish_events, 1) << "request " << r.id;
    EXPECT_EQ(rec.num_first_token_events, 1) << "request " << r.id;
    EXPECT_EQ(rec.num_output_tokens, r.output_tokens) << "request " << r.id;
    EXPECT_LE(rec.first_scheduled_ns, rec.first_token_ns);
    EXPECT_LE(rec.first_token_ns, rec.finish_ns);
  }
}

TEST(Scheduler, OneRequestFromPrefillToFinish) {
  kv::BlockManager kv(kv_pool(100));
  Scheduler s(SchedulerConfig{}, kv);
  ASSERT_EQ(s.add_request(request(7, 100, 3), 0), RejectReason::none);
  EXPECT_EQ(s.num_waiting(), 1);

  const StepPlan& p1 = s.schedule(0);
  ASSERT_EQ(p1.seqs.size(), 1u);
  EXPECT_EQ(p1.seqs[0].request_id, 7);
  EXPECT_EQ(p1.seqs[0].num_new_tokens, 100);
  EXPECT_EQ(p1.seqs[0].num_context_tokens, 0);
  EXPECT_TRUE(p1.seqs[0].samples);
  EXPECT_TRUE(p1.seqs[0].first_scheduled);
  EXPECT_EQ(p1.num_batched_tokens, 100);
  EXPECT_EQ(s.block_table(7).size(), 7u);
  auto e1 = s.update({}, 10);
  ASSERT_EQ(e1.size(), 1u);
  EXPECT_TRUE(e1[0].first_scheduled);
  EXPECT_TRUE(e1[0].first_token);
  EXPECT_EQ(e1[0].num_new_output_tokens, 1);
  EXPECT_FALSE(e1[0].finished);

  const StepPlan& p2 = s.schedule(10);
  ASSERT_EQ(p2.seqs.size(), 1u);
  EXPECT_EQ(p2.seqs[0].num_new_tokens, 1);
  EXPECT_EQ(p2.seqs[0].num_context_tokens, 100);
  EXPECT_FALSE(p2.seqs[0].first_scheduled);
  auto e2 = s.update({}, 20);
  EXPECT_FALSE(e2[0].first_token);
  EXPECT_FALSE(e2[0].finished);

  s.schedule(20);
  auto e3 = s.update({}, 30);
  EXPECT_TRUE(e3[0].finished);
  EXPECT_FALSE(s.has_unfinished());
  EXPECT_EQ(kv.num_free_blocks(), 100);
  EXPECT_TRUE(s.schedule(30).empty());
  EXPECT_EQ(s.stats().num_finished, 1);
  EXPECT_EQ(s.stats().num_steps, 3);
  EXPECT_EQ(s.stats().num_scheduled_tokens, 102);
}

TEST(Scheduler, RejectsWithAReason) {
  kv::BlockManager kv(kv_pool(100));  // watermark 1% -> 1 block; room for 99 * 16 tokens
  SchedulerConfig c;
  c.max_model_len = 2000;
  c.max_num_batched_tokens = 2000;
  Scheduler s(c, kv);
  EXPECT_EQ(s.add_request(request(1, 0, 5), 0), RejectReason::empty_prompt);
  EXPECT_EQ(s.add_request(request(1, 5, 0), 0), RejectReason::no_output_tokens);
  EXPECT_EQ(s.add_request(request(1, 1990, 11), 0), RejectReason::exceeds_max_model_len);
  EXPECT_EQ(s.add_request(request(1, 1500, 86), 0), RejectReason::exceeds_kv_capacity);
  EXPECT_EQ(s.add_request(request(1, 1500, 85), 0), RejectReason::none);  // 1584 tokens: 99 blocks
  EXPECT_EQ(s.add_request(request(1, 10, 10), 0), RejectReason::duplicate_id);
  EXPECT_EQ(s.stats().num_rejected, 5);
  EXPECT_EQ(s.num_waiting(), 1);
  EXPECT_EQ(reject_reason_name(RejectReason::exceeds_kv_capacity), "exceeds_kv_capacity");
}

TEST(Scheduler, PrefixHitsSkipCachedBlocksButNeverTheLastToken) {
  kv::BlockManager kv(kv_pool(100));
  Scheduler s(SchedulerConfig{}, kv);
  Request a = request(1, 64, 1);
  a.prefix_block_tokens = 16;
  a.prefix_blocks = {11, 12, 13, 14};
  ASSERT_EQ(s.add_request(a, 0), RejectReason::none);
  s.schedule(0);
  EXPECT_TRUE(s.update({}, 1)[0].finished);
  // Same 64-token prompt: blocks 0..2 hit; block 3 holds the last token, computed again.
  Request b = a;
  b.id = 2;
  b.output_tokens = 2;
  ASSERT_EQ(s.add_request(b, 1), RejectReason::none);
  const StepPlan& p = s.schedule(1);
  ASSERT_EQ(p.seqs.size(), 1u);
  EXPECT_EQ(p.seqs[0].num_prefix_hit_tokens, 48);
  EXPECT_EQ(p.seqs[0].num_context_tokens, 48);
  EXPECT_EQ(p.seqs[0].num_new_tokens, 16);
  const auto events = s.update({}, 2);
  EXPECT_EQ(events[0].num_prefix_hit_tokens, 48);
  EXPECT_EQ(s.stats().num_prefix_hit_tokens, 48);
  EXPECT_EQ(kv.stats().num_hit_blocks, 3);
}

TEST(Scheduler, SpeculativeRejectionsRollBackKvExactly) {
  kv::BlockManager kv(kv_pool(200));
  SchedulerConfig c;
  c.num_speculative_tokens = 4;
  Scheduler s(c, kv);
  const int64_t prompt = 30;
  const int64_t output = 200;
  ASSERT_EQ(s.add_request(request(1, prompt, output), 0), RejectReason::none);
  std::mt19937_64 rng(5);
  int64_t produced = 0;
  int64_t now = 0;
  bool finished = false;
  while (!finished) {
    const StepPlan& plan = s.schedule(now);
    ASSERT_EQ(plan.seqs.size(), 1u);
    const ScheduledSeq seq = plan.seqs[0];
    const int64_t remaining = output - produced;
    if (produced > 0) {
      EXPECT_EQ(seq.num_spec_tokens, std::min<int64_t>(4, remaining - 1));
      EXPECT_EQ(seq.num_new_tokens, 1 + seq.num_spec_tokens);
    }
    EXPECT_EQ(kv.num_tokens(1), seq.num_context_tokens + seq.num_new_tokens);
    const auto accepted = static_cast<int32_t>(1 + rng() % (seq.num_spec_tokens + 1));
    const SeqOutput out{accepted};
    const auto events = s.update({&out, 1}, ++now);
    produced += accepted;
    EXPECT_EQ(events[0].num_new_output_tokens, accepted);
    finished = events[0].finished;
    if (!finished) {
      // The KV holds exactly the accepted tokens: all known tokens but the newest.
      EXPECT_EQ(kv.num_tokens(1), prompt + produced - 1);
      EXPECT_EQ(static_cast<int64_t>(kv.block_table(1).size()),
                kv.num_blocks_for(prompt + produced - 1));
    }
  }
  EXPECT_EQ(produced, output);
  EXPECT_GT(s.stats().num_accepted_spec_tokens, 0);
  EXPECT_LT(s.stats().num_accepted_spec_tokens, s.stats().num_spec_tokens);
  EXPECT_EQ(kv.num_free_blocks(), 200);
}

TEST(Scheduler, SpecTokenOverrideAppliesToOneStep) {
  kv::BlockManager kv(kv_pool(100));
  SchedulerConfig c;
  c.num_speculative_tokens = 4;
  Scheduler s(c, kv);
  ASSERT_EQ(s.add_request(request(1, 10, 100), 0), RejectReason::none);
  s.schedule(0);
  s.update({}, 1);
  s.set_spec_tokens(1, 1);
  EXPECT_EQ(s.schedule(1).seqs[0].num_spec_tokens, 1);
  const SeqOutput one{1};
  s.update({&one, 1}, 2);
  EXPECT_EQ(s.schedule(2).seqs[0].num_spec_tokens, 4);
  EXPECT_THROW(s.update({}, 3), std::logic_error);  // spec tokens need outputs
  EXPECT_THROW(s.set_spec_tokens(1, 5), std::logic_error);
}

TEST(Scheduler, MisuseIsALogicError) {
  kv::BlockManager kv(kv_pool(100));
  Scheduler s(SchedulerConfig{}, kv);
  ASSERT_EQ(s.add_request(request(1, 10, 5), 0), RejectReason::none);
  s.schedule(5);
  EXPECT_THROW(s.schedule(5), std::logic_error);        // plan not applied yet
  EXPECT_THROW(s.remove_request(1), std::logic_error);  // while executing
  EXPECT_THROW(s.update({}, 4), std::logic_error);      // before the step started
  const SeqOutput two{2};
  EXPECT_THROW(s.update({&two, 1}, 6), std::logic_error);  // 2 tokens without spec tokens
}

TEST(Scheduler, RemoveReturnsTheRequestAndFreesItsBlocks) {
  kv::BlockManager kv(kv_pool(100));
  Scheduler s(SchedulerConfig{}, kv);
  Request r = request(1, 40, 10);
  r.tenant = "t";
  ASSERT_EQ(s.add_request(r, 0), RejectReason::none);
  ASSERT_EQ(s.add_request(request(2, 40, 10), 0), RejectReason::none);
  s.schedule(0);
  s.update({}, 1);
  s.schedule(1);
  s.update({}, 2);
  const auto removed = s.remove_request(1);
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(removed->request, r);
  EXPECT_EQ(removed->num_output_tokens, 2);
  EXPECT_EQ(s.num_running(), 1);
  EXPECT_FALSE(kv.has_request(1));
  EXPECT_FALSE(s.remove_request(1).has_value());
  ASSERT_EQ(s.add_request(request(3, 10, 1), 2), RejectReason::none);
  EXPECT_TRUE(s.remove_request(3).has_value());  // from the waiting queue
  EXPECT_TRUE(s.remove_request(2).has_value());
  EXPECT_FALSE(s.has_unfinished());
  EXPECT_EQ(kv.num_free_blocks(), 100);
  EXPECT_EQ(s.stats().num_removed, 3);
}

TEST(Scheduler, RecomputePreemptionConservesRequests) {
  SchedulerConfig c;
  c.max_model_len = 1024;
  c.max_num_batched_tokens = 2048;
  const auto requests = make_workload(11, 300, 400.0, 300, 300);
  Driver driver(c, kv_pool(120));
  const DriveResult result = driver.run(requests, 200000);
  expect_conserved(requests, result);
  EXPECT_GT(result.num_preempted, 20);
  EXPECT_GT(driver.scheduler().stats().num_recompute_preemptions, 20);
  EXPECT_EQ(driver.scheduler().stats().num_swap_preemptions, 0);
  EXPECT_EQ(driver.block_manager().num_free_blocks(), 120);
  // A preempted request found some of its own blocks again in the prefix cache.
  int64_t first_hits = 0;
  for (const auto& rec : result.records) first_hits += rec.num_prefix_hit_tokens;
  EXPECT_GT(driver.scheduler().stats().num_prefix_hit_tokens, first_hits);
}

TEST(Scheduler, SwapPreemptionConservesRequests) {
  SchedulerConfig c;
  c.preemption = "swap";
  c.max_model_len = 1024;
  c.max_num_batched_tokens = 2048;
  const auto requests = make_workload(12, 300, 400.0, 300, 300);
  Driver driver(c, kv_pool(120, 200));
  const DriveResult result = driver.run(requests, 200000);
  expect_conserved(requests, result);
  EXPECT_GT(driver.scheduler().stats().num_swap_preemptions, 20);
  EXPECT_GT(result.num_swapped_out_blocks, 100);
  EXPECT_EQ(driver.block_manager().stats().num_swap_out_blocks,
            driver.block_manager().stats().num_swap_in_blocks);
  EXPECT_EQ(driver.block_manager().num_free_blocks(), 120);
  EXPECT_EQ(driver.block_manager().num_free_cpu_blocks(), 200);
}

TEST(Scheduler, GuaranteedNoEvictNeverPreempts) {
  for (const char* policy : {"static", "continuous", "chunked_prefill"}) {
    SchedulerConfig c;
    c.policy = policy;
    c.admission = "guaranteed_no_evict";
    c.max_model_len = 1024;
    c.max_num_batched_tokens = policy == std::string("chunked_prefill") ? 256 : 1024;
    c.num_speculative_tokens = 2;
    const auto requests = make_workload(13, 300, 400.0, 300, 300);
    Driver driver(c, kv_pool(120));
    const DriveResult result = driver.run(requests, 200000);
    expect_conserved(requests, result);
    EXPECT_EQ(result.num_preempted, 0) << policy;
    EXPECT_EQ(driver.scheduler().stats().num_recompute_preemptions, 0);
  }
}

TEST(Scheduler, SameInputsGiveTheSamePlans) {
  SchedulerConfig c;
  c.policy = "chunked_prefill";
  c.max_num_batched_tokens = 512;
  c.num_speculative_tokens = 3;
  const auto requests = make_workload(14, 200, 300.0, 400, 200);
  Driver first(c, kv_pool(150), 3);
  Driver second(c, kv_pool(150), 3);
  const DriveResult a = first.run(requests, 100000);
  const DriveResult b = second.run(requests, 100000);
  EXPECT_EQ(a.plan_digest, b.plan_digest);
  EXPECT_EQ(a.num_steps, b.num_steps);
  EXPECT_GT(a.num_preempted, 0);
}

}  // namespace
}  // namespace tidal::sched
