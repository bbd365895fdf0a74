// Static batching (engine/sched/static_policy.h): a batch is up to static_batch_size requests
// whose padded KV fits, prefilled in chunks of the token budget, then decoded to its end; no
// request joins it meanwhile and it never preempts.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
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

struct StaticRun {
  std::vector<int64_t> batch_sizes;         // [num batches] requests running when it formed
  std::vector<int64_t> num_waiting_before;  // [num batches] requests waiting just before
  std::vector<int64_t> step_num_seqs;       // [num steps] sequences in each plan
  std::vector<int64_t> step_num_tokens;     // [num steps] batched tokens in each plan
  std::vector<int64_t> first_token_step;    // [num requests] step that sampled its first token
  std::vector<int64_t> num_output_tokens;   // [num requests]
  int64_t num_preempted = 0;
  bool finished = false;
};

// Plays an executor (step time 1 ms + 1 us per token) and checks every step against the
// static-batch invariants:
//   - a batch never runs more than static_batch_size requests, and never more than it formed
//     with (no request joins a running batch: nobody leaves the waiting queue meanwhile);
//   - the batch's padded KV (members x blocks(longest prompt + longest output - 1)) fits the
//     pool less the watermark, so KV is never over-committed and nothing is preempted.
int64_t arrival_ns(const Request& r) {
  return std::llround(r.arrival_s * 1e9);
}

StaticRun run_static(const SchedulerConfig& config, const kv::BlockManagerConfig& kv_config,
                     const std::vector<Request>& requests, int64_t max_steps) {
  kv::BlockManager kv(kv_config);
  Scheduler scheduler(config, kv);
  StaticRun run;
  run.first_token_step.assign(requests.size(), -1);
  run.num_output_tokens.assign(requests.size(), 0);
  const auto num_watermark_blocks =
      static_cast<int64_t>(config.watermark * static_cast<double>(kv.num_gpu_blocks()));
  std::vector<int64_t> members;    // [members of the running batch] request ids
  std::vector<SeqOutput> outputs;  // [plan.seqs.size()]
  std::mt19937_64 rng(7);
  size_t next = 0;
  int64_t now = 0;
  for (int64_t step = 0; step < max_steps;) {
    while (next < requests.size() && arrival_ns(requests[next]) <= now) {
      EXPECT_EQ(scheduler.add_request(requests[next], now), RejectReason::none);
      ++next;
    }
    const bool active = scheduler.num_running() + scheduler.num_swapped() > 0;
    const int64_t num_waiting_before = scheduler.num_waiting();
    const int64_t num_running_before = scheduler.num_running();
    const StepPlan& plan = scheduler.schedule(now);
    EXPECT_LE(scheduler.num_running(), config.static_batch_size);
    if (active) {
      EXPECT_GE(scheduler.num_waiting(), num_waiting_before) << "a request joined the batch";
      EXPECT_LE(scheduler.num_running(), num_running_before) << "the batch grew";
    } else if (scheduler.num_running() > 0) {
      run.batch_sizes.push_back(scheduler.num_running());
      run.num_waiting_before.push_back(num_waiting_before);
      members.clear();
    }
    if (plan.empty()) {
      int64_t wake = scheduler.next_wakeup_ns();
      if (next < requests.size()) wake = std::min(wake, arrival_ns(requests[next]));
      if (wake == Scheduler::kNoWakeup) break;
      now = std::max(wake, now + 1);
      continue;
    }
    run.step_num_seqs.push_back(static_cast<int64_t>(plan.seqs.size()));
    run.step_num_tokens.push_back(plan.num_batched_tokens);
    run.num_preempted += static_cast<int64_t>(plan.preempted.size());
    EXPECT_LE(plan.num_batched_tokens, config.max_num_batched_tokens);
    for (const ScheduledSeq& seq : plan.seqs) {
      if (seq.first_scheduled) members.push_back(seq.request_id);
    }
    outputs.clear();
    for (const ScheduledSeq& seq : plan.seqs) {  // drafts accepted uniformly at random
      const auto num_drafts = static_cast<uint64_t>(seq.num_spec_tokens);
      outputs.push_back({seq.samples ? 1 + static_cast<int32_t>(rng() % (num_drafts + 1)) : 0});
    }
    now += 1000000 + 1000 * plan.num_batched_tokens;
    for (const RequestEvent& e : scheduler.update(outputs, now)) {
      const auto id = static_cast<size_t>(e.request_id);
      if (e.first_token) run.first_token_step[id] = step;
      run.num_output_tokens[id] += e.num_new_output_tokens;
    }
    EXPECT_EQ(kv.check_invariants(), "");
    ++step;
    if (scheduler.num_running() + scheduler.num_swapped() == 0 && !run.batch_sizes.empty()) {
      // The batch ended: its members are those first scheduled while it ran.
      EXPECT_EQ(static_cast<int64_t>(members.size()), run.batch_sizes.back());
      int64_t max_prompt_tokens = 0;
      int64_t max_output_tokens = 0;
      for (const int64_t id : members) {
        max_prompt_tokens =
            std::max(max_prompt_tokens, requests[static_cast<size_t>(id)].prompt_tokens);
        max_output_tokens =
            std::max(max_output_tokens, requests[static_cast<size_t>(id)].output_tokens);
      }
      EXPECT_LE(static_cast<int64_t>(members.size()) *
                    kv.num_blocks_for(max_prompt_tokens + max_output_tokens - 1),
                kv.num_gpu_blocks() - num_watermark_blocks)
          << "the padded batch over-commits the KV pool";
      members.clear();
    }
  }
  run.finished = next == requests.size() && !scheduler.has_unfinished();
  return run;
}

SchedulerConfig static_config(int32_t batch_size) {
  SchedulerConfig c;
  c.policy = "static";
  c.static_batch_size = batch_size;
  c.static_batch_timeout_s = 0.5;
  return c;
}

// 32 prompts of 600 tokens are 19,200 tokens, more than one 8,192-token step: all 32 still run
// as one batch, prefilled in three steps of FCFS chunks, then decoded together.
TEST(StaticBatch, ThirtyTwoShortRequestsRunAsOneBatch) {
  std::vector<Request> requests;
  for (int64_t id = 0; id < 32; ++id) requests.push_back(request(id, 600, 100));
  const StaticRun run = run_static(static_config(32), kv_pool(2000), requests, 1000);
  ASSERT_TRUE(run.finished);
  EXPECT_EQ(run.batch_sizes, (std::vector<int64_t>{32}));
  ASSERT_EQ(run.step_num_seqs.size(), 3u + 99u);
  // 13 whole prompts + 392 tokens of the 14th; its 208 + 13 whole + 184 of the 28th; the rest.
  EXPECT_EQ(run.step_num_tokens[0], 8192);
  EXPECT_EQ(run.step_num_seqs[0], 14);
  EXPECT_EQ(run.step_num_tokens[1], 8192);
  EXPECT_EQ(run.step_num_seqs[1], 15);
  EXPECT_EQ(run.step_num_tokens[2], 416 + 4 * 600);
  EXPECT_EQ(run.step_num_seqs[2], 5);
  for (size_t i = 3; i < run.step_num_seqs.size(); ++i) {
    EXPECT_EQ(run.step_num_seqs[i], 32) << "decode step " << i;
  }
  for (int64_t id = 0; id < 32; ++id) {
    const int64_t expected_step = id < 13 ? 0 : id < 27 ? 1 : 2;
    EXPECT_EQ(run.first_token_step[static_cast<size_t>(id)], expected_step) << id;
    EXPECT_EQ(run.num_output_tokens[static_cast<size_t>(id)], 100) << id;
  }
  EXPECT_EQ(run.num_preempted, 0);
}

// The padded batch is what must fit: two short requests take 2 x blocks(119) = 16 blocks, but a
// 400-token prompt pads all three to 419 tokens, 3 x 27 = 81 blocks (their own KV is 43).
TEST(StaticBatch, PaddedKvLimitsTheBatch) {
  const std::vector<Request> requests{request(0, 100, 20), request(1, 100, 20), request(2, 400, 20),
                                      request(3, 100, 20)};
  SchedulerConfig c = static_config(4);
  c.watermark = 0.0;
  EXPECT_EQ(run_static(c, kv_pool(80), requests, 1000).batch_sizes, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(run_static(c, kv_pool(81), requests, 1000).batch_sizes, (std::vector<int64_t>{3, 1}));
}

// Seeded workloads over batch sizes, pool sizes, admission and preemption modes, speculation
// and prefix caching (every third request shares a prefix family): the invariants hold at every
// step (run_static), every request finishes with its exact output, nothing is preempted.
TEST(StaticBatch, InvariantsHoldOverSeededWorkloads) {
  uint64_t seed = 500;
  for (const int32_t batch_size : {4, 8, 32}) {
    for (const int64_t num_gpu_blocks : {160, 2000}) {
      for (const char* admission : {"max_utilization", "guaranteed_no_evict"}) {
        for (const char* preemption : {"recompute", "swap"}) {
          for (const int32_t k : {0, 2}) {
            SCOPED_TRACE("batch " + std::to_string(batch_size) + ", " +
                         std::to_string(num_gpu_blocks) + " blocks, " + admission + "/" +
                         preemption + ", k=" + std::to_string(k));
            SchedulerConfig c = static_config(batch_size);
            c.admission = admission;
            c.preemption = preemption;
            c.num_speculative_tokens = k;
            c.max_num_seqs = 32;
            c.max_model_len = 1024;
            c.max_num_batched_tokens = 256;  // below max_model_len: prompts are chunked
            c.watermark = 0.05;
            c.static_batch_timeout_s = 0.01;
            const auto requests = make_workload(seed++, 300, 200.0, 500, 200);
            const StaticRun run = run_static(c, kv_pool(num_gpu_blocks, 160), requests, 200000);
            ASSERT_TRUE(run.finished);
            EXPECT_EQ(run.num_preempted, 0);
            for (const Request& r : requests) {
              EXPECT_EQ(run.num_output_tokens[static_cast<size_t>(r.id)], r.output_tokens) << r.id;
            }
            int64_t num_batched = 0;
            for (const int64_t n : run.batch_sizes) num_batched += n;
            EXPECT_EQ(num_batched, 300);
            // In a pool that holds any padded batch, a batch takes all it may: its size, or
            // everyone waiting when the timeout formed it.
            for (size_t i = 0; num_gpu_blocks == 2000 && i < run.batch_sizes.size(); ++i) {
              EXPECT_EQ(run.batch_sizes[i],
                        std::min<int64_t>(batch_size, run.num_waiting_before[i]))
                  << "batch " << i;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace tidal::sched
