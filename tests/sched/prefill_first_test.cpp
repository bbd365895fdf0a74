// prefill_first (SGLang's default batching): invariants over seeded workloads. Each step holds
// prompt chunks only or decodes only; prompts go first whenever one can run; every plan keeps
// the token budget and the sequence limit; every request finishes once with its exact output;
// every block returns (free + used == total); the same inputs give the same plans.
#include "engine/sched/prefill_first_policy.h"

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "engine/sched/scheduler.h"
#include "tests/sched/sched_driver.h"

namespace tidal::sched {
namespace {

using testing::digest_step;
using testing::Driver;
using testing::DriveResult;
using testing::kv_pool;
using testing::make_workload;
using testing::request;

SchedulerConfig prefill_first_config(int32_t num_speculative_tokens = 0) {
  SchedulerConfig c;
  c.policy = "prefill_first";
  c.max_num_seqs = 24;
  c.static_batch_size = 8;  // unused, within max_num_seqs
  c.max_model_len = 1024;
  c.max_num_batched_tokens = 192;  // SGLang's chunked_prefill_size, small to force chunks
  c.watermark = 0.05;
  c.num_speculative_tokens = num_speculative_tokens;
  return c;
}

// What one run saw, step by step.
struct StepLog {
  int64_t num_steps = 0;
  int64_t num_prefill_steps = 0;
  int64_t num_decode_steps = 0;
  int64_t num_mixed_steps = 0;
  // Decode steps taken while a waiting request could have been admitted right away (no
  // preemption in that step, the sequence limit not reached, blocks free for its first chunk).
  int64_t num_decode_steps_skipping_prefill = 0;
  int64_t num_preempted = 0;
  uint64_t digest = 0;
  bool finished = false;
  std::map<int64_t, int64_t> num_outputs;   // by request id
  std::map<int64_t, int32_t> num_finishes;  // by request id
};

// Plays the executor: one token per sampling sequence, or 1 + a seeded number of accepted
// drafts; steps last 1 ms + 1 us per token. A sequence counts as a decode when it computes the
// last known token of a request that was already running (its context is all known tokens but
// one, it is not new and was not preempted since it last ran); anything else is prefill work.
StepLog run_logged(const SchedulerConfig& config, const std::vector<Request>& requests,
                   int64_t num_gpu_blocks, int64_t max_steps) {
  kv::BlockManager kv(kv_pool(num_gpu_blocks));
  Scheduler scheduler(config, kv);
  std::mt19937_64 rng(7);
  std::map<int64_t, int64_t> num_known;  // prompt + produced tokens
  std::set<int64_t> preempted;           // preempted since they last ran
  StepLog log;
  std::vector<SeqOutput> outputs;
  size_t next = 0;
  int64_t now = 0;
  while (log.num_steps < max_steps) {
    while (next < requests.size() && std::llround(requests[next].arrival_s * 1e9) <= now) {
      EXPECT_EQ(scheduler.add_request(requests[next], now), RejectReason::none);
      num_known[requests[next].id] = requests[next].prompt_tokens;
      ++next;
    }
    const StepPlan& plan = scheduler.schedule(now);
    if (plan.empty()) {
      if (next == requests.size()) break;
      now = std::max<int64_t>(now + 1, std::llround(requests[next].arrival_s * 1e9));
      continue;
    }
    ++log.num_steps;
    EXPECT_LE(plan.num_batched_tokens, config.max_num_batched_tokens);
    EXPECT_LE(static_cast<int64_t>(plan.seqs.size()), config.max_num_seqs);
    EXPECT_LE(scheduler.num_running(), config.max_num_seqs);
    for (const Preemption& p : plan.preempted) preempted.insert(p.request_id);
    log.num_preempted += static_cast<int64_t>(plan.preempted.size());
    bool any_prefill = false;
    bool any_decode = false;
    outputs.clear();
    for (const ScheduledSeq& seq : plan.seqs) {
      const bool decode = !seq.first_scheduled && !preempted.contains(seq.request_id) &&
                          seq.num_context_tokens + 1 == num_known[seq.request_id];
      (decode ? any_decode : any_prefill) = true;
      preempted.erase(seq.request_id);
      const int32_t produced =
          seq.samples
              ? 1 + static_cast<int32_t>(rng() % static_cast<uint64_t>(seq.num_spec_tokens + 1))
              : 0;
      outputs.push_back({produced});
      log.digest = digest_step(log.digest, static_cast<uint64_t>(seq.request_id));
      log.digest = digest_step(log.digest, static_cast<uint64_t>(seq.num_new_tokens));
    }
    if (any_prefill && any_decode) ++log.num_mixed_steps;
    if (any_prefill) ++log.num_prefill_steps;
    if (!any_prefill) {
      ++log.num_decode_steps;
      // A decode step with requests waiting: none of them could have been admitted.
      if (scheduler.num_waiting() > 0 && plan.preempted.empty() &&
          scheduler.num_running() < config.max_num_seqs &&
          kv.num_free_blocks() - static_cast<int64_t>(config.watermark * num_gpu_blocks) >=
              kv.num_blocks_for(config.max_num_batched_tokens)) {
        ++log.num_decode_steps_skipping_prefill;
      }
    }
    now += 1000000 + 1000 * plan.num_batched_tokens;
    for (const RequestEvent& e : scheduler.update(outputs, now)) {
      num_known[e.request_id] += e.num_new_output_tokens;
      log.num_outputs[e.request_id] += e.num_new_output_tokens;
      if (e.finished) ++log.num_finishes[e.request_id];
    }
    EXPECT_EQ(kv.check_invariants(), "");
    EXPECT_EQ(kv.num_free_blocks() + kv.num_used_blocks(), kv.num_gpu_blocks());
  }
  log.finished = next == requests.size() && !scheduler.has_unfinished();
  EXPECT_EQ(kv.num_free_blocks(), num_gpu_blocks) << "blocks did not all return";
  EXPECT_EQ(kv.num_requests(), 0);
  return log;
}

TEST(PrefillFirst, NeverMixesPrefillAndDecodeAndEveryRequestFinishesOnce) {
  for (const int32_t k : {0, 3}) {
    SCOPED_TRACE("k=" + std::to_string(k));
    auto requests = make_workload(31 + static_cast<uint64_t>(k), 400, 200.0, 500, 200);
    requests.push_back(request(400, 1024 - 10, 10));  // longest allowed prompt
    requests.back().arrival_s = requests[399].arrival_s;
    const StepLog log = run_logged(prefill_first_config(k), requests, 160, 200000);
    ASSERT_TRUE(log.finished) << "requests starved or the step bound was hit";
    EXPECT_EQ(log.num_mixed_steps, 0) << "a step held prompt chunks and decodes together";
    EXPECT_GT(log.num_prefill_steps, 0);
    EXPECT_GT(log.num_decode_steps, 0);
    EXPECT_GT(log.num_preempted, 0) << "the pool was meant to run dry";
    for (const Request& r : requests) {
      EXPECT_EQ(log.num_finishes.at(r.id), 1) << r.id;
      EXPECT_EQ(log.num_outputs.at(r.id), r.output_tokens) << r.id;
    }
  }
}

TEST(PrefillFirst, TheStepClassifierSeesChunkedPrefillMix) {
  // Control for the test above: the same workload under chunked_prefill mixes the two kinds.
  SchedulerConfig c = prefill_first_config();
  c.policy = "chunked_prefill";
  const StepLog log = run_logged(c, make_workload(31, 400, 200.0, 500, 200), 160, 200000);
  ASSERT_TRUE(log.finished);
  EXPECT_GT(log.num_mixed_steps, 0);
}

TEST(PrefillFirst, PromptsGoFirstWheneverOneCanRun) {
  // Plenty of blocks: the only reasons to decode are an empty waiting queue or a full batch.
  const auto requests = make_workload(5, 300, 400.0, 400, 100);
  const StepLog log = run_logged(prefill_first_config(), requests, 4000, 200000);
  ASSERT_TRUE(log.finished);
  EXPECT_EQ(log.num_mixed_steps, 0);
  EXPECT_EQ(log.num_decode_steps_skipping_prefill, 0)
      << "a decode step ran while a waiting prompt could have been prefilled";
}

TEST(PrefillFirst, ChunksALongPromptOverPrefillStepsUnderTheBudget) {
  SchedulerConfig c = prefill_first_config();
  kv::BlockManager kv(kv_pool(400));
  Scheduler s(c, kv);
  int64_t now = 0;
  s.add_request(request(0, 40, 5), now);
  const StepPlan& first = s.schedule(now);  // request 0's whole prompt
  ASSERT_EQ(first.seqs.size(), 1u);
  EXPECT_EQ(first.seqs[0].num_new_tokens, 40);
  s.update({}, ++now);
  s.add_request(request(1, 1000, 5), now);
  int64_t prefilled = 0;
  while (prefilled < 1000) {
    const StepPlan& plan = s.schedule(now);
    ASSERT_EQ(plan.seqs.size(), 1u) << "request 0's decodes wait while request 1 prefills";
    EXPECT_EQ(plan.seqs[0].request_id, 1);
    EXPECT_EQ(plan.seqs[0].num_context_tokens, prefilled);
    EXPECT_EQ(plan.seqs[0].num_new_tokens, std::min<int64_t>(192, 1000 - prefilled));
    prefilled += plan.seqs[0].num_new_tokens;
    EXPECT_EQ(plan.seqs[0].samples, prefilled == 1000);
    s.update({}, ++now);
  }
  const StepPlan& decode = s.schedule(now);  // both decode together now
  ASSERT_EQ(decode.seqs.size(), 2u);
  for (const ScheduledSeq& seq : decode.seqs) EXPECT_EQ(seq.num_new_tokens, 1);
  s.update({}, ++now);
}

TEST(PrefillFirst, SameInputsGiveTheSamePlans) {
  const auto requests = make_workload(77, 300, 300.0, 500, 150);
  const StepLog a = run_logged(prefill_first_config(2), requests, 160, 200000);
  const StepLog b = run_logged(prefill_first_config(2), requests, 160, 200000);
  ASSERT_TRUE(a.finished);
  EXPECT_EQ(a.digest, b.digest);
  EXPECT_EQ(a.num_steps, b.num_steps);
}

TEST(PrefillFirst, SharedDriverChecksEveryLimit) {
  // The driver every policy test uses: limits, watermark on admission, block invariants, FCFS.
  for (const char* admission : {"max_utilization", "guaranteed_no_evict"}) {
    SCOPED_TRACE(admission);
    SchedulerConfig c = prefill_first_config();
    c.admission = admission;
    const auto requests = make_workload(9, 300, 200.0, 500, 200);
    Driver driver(c, kv_pool(160));
    const DriveResult result = driver.run(requests, 200000);
    ASSERT_TRUE(result.finished);
    std::vector<int64_t> by_arrival;
    for (const Request& r : requests) {
      EXPECT_EQ(result.records[static_cast<size_t>(r.id)].num_finish_events, 1) << r.id;
      by_arrival.push_back(r.id);
    }
    EXPECT_EQ(result.first_scheduled_order, by_arrival) << "admission was not FCFS";
    EXPECT_EQ(driver.block_manager().num_free_blocks(), 160);
  }
}

TEST(PrefillFirst, FactoryAndRegistryAgree) {
  EXPECT_NE(make_prefill_first_policy(), nullptr);
  EXPECT_TRUE(batch_policy_traits("prefill_first").splits_prompts);
  EXPECT_FALSE(batch_policy_traits("prefill_first").supports_swap);
  SchedulerConfig c = prefill_first_config();
  c.preemption = "swap";
  kv::BlockManager kv(kv_pool(160, 160));
  EXPECT_THROW(Scheduler(c, kv), InputError);
}

}  // namespace
}  // namespace tidal::sched
