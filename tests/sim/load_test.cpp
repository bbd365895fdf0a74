// The load figures beside the busy share (docs/run-output.md, "Load"): each pool's batch
// against its limit, KV use, MFU and MBU, and the timeline's per-interval maxima and means.
#include <algorithm>

#include <gtest/gtest.h>

#include "perf/gpu_catalog.h"
#include "sim/metrics.h"
#include "sim/simulator.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::make_request;
using testing::scenario_from;
using testing::TempDir;

constexpr int64_t kSecond = 1'000'000'000;

// One Llama-3-8B replica on an H100 serving `requests` from a trace, timeline of 1 s.
Scenario one_replica(const TempDir& dir, const std::vector<Request>& requests) {
  const std::string trace = dir.write_trace("trace.jsonl", requests);
  return scenario_from(
      {{"timeline_interval_s", 1.0},
       {"workloads", {{{"trace", {{"path", trace}}}}}},
       {"fleet",
        {{"pools",
          {h100_pool(
              1, {{"policy", "continuous"}, {"max_num_seqs", 8}, {"static_batch_size", 8}})}}}}},
      dir.path().string());
}

TEST(Load, MfuIsTheStepsFlopsOverItsTimeAndThePeak) {
  // One prompt of t = 1,000 tokens and one output token: a single prefill step.
  const TempDir dir("load_mfu");
  const Scenario s = one_replica(dir, {make_request(0, 0.0, 1000, 1)});
  RunResult result = run_scenario(s);
  const RunMetrics m = compute_metrics(s, result);
  ASSERT_EQ(m.pools[0].num_steps, 1);
  const RequestRecord& r = result.records[0];
  const double step_s = static_cast<double>(r.finish_ns - r.first_scheduled_ns) / 1e9;

  // Llama-3-8B, by hand: per token and layer, the projections (q, k, v: 4,096 x (32 + 2 x 8) x
  // 128; o: 4,096 x 4,096) and the gated MLP (4,096 x 2 x 14,336 up, 14,336 x 4,096 down), two
  // FLOPs per multiply-add; attention: QK^T and PV, 4 x 4,096 FLOPs per (query, key) pair,
  // t (t + 1) / 2 causal pairs; the LM head once (one sampled row): 2 x 4,096 x 128,256.
  const double t = 1000.0;
  const double gemms = 2.0 * 4096.0 * (6144.0 + 4096.0 + 2.0 * 14336.0 + 14336.0);
  const double attention = 4.0 * 4096.0 * t * (t + 1.0) / 2.0;
  const double flops = 32.0 * (t * gemms + attention) + 2.0 * 4096.0 * 128256.0;
  const double peak = perf::find_gpu("H100-SXM", "gpu").flops_bf16;
  ASSERT_TRUE(m.pools[0].mfu);
  EXPECT_NEAR(*m.pools[0].mfu, flops / (step_s * peak), 1e-12);
  EXPECT_NEAR(*m.mfu, *m.pools[0].mfu, 1e-15);
  // Bytes: at least the weights streamed once (7.5e9 parameters in bf16 and the embedding
  // rows), and the share is a share of the bandwidth.
  ASSERT_TRUE(m.pools[0].mbu);
  EXPECT_GT(*m.pools[0].mbu, 0.0);
  EXPECT_LT(*m.pools[0].mbu, 1.0);
  // The timeline's interval holding the step has the same MFU and MBU.
  ASSERT_TRUE(result.timeline[0].mfu);
  EXPECT_NEAR(*result.timeline[0].mfu, *m.pools[0].mfu, 1e-12);
  EXPECT_NEAR(*result.timeline[0].mbu, *m.pools[0].mbu, 1e-12);
}

TEST(Load, BatchAndKvUseOverTheStepTime) {
  // Four requests together (prompt 100, output 3): a prefill step and two decode steps of 4
  // sequences; a fifth alone at 10 s (output 2): two steps of 1. Batches {4, 4, 4, 1, 1},
  // weighted by the steps' times (trace.json's slices).
  const TempDir dir("load_batch");
  std::vector<Request> requests;
  for (int64_t i = 0; i < 4; ++i) requests.push_back(make_request(i, 0.0, 100, 3));
  requests.push_back(make_request(4, 10.0, 100, 2));
  const Scenario s = one_replica(dir, requests);
  RunResult result = run_scenario(s);
  const RunMetrics m = compute_metrics(s, result);
  const PoolMetrics& p = m.pools[0];
  ASSERT_EQ(p.num_steps, 5);
  ASSERT_EQ(result.slices.size(), 5u);
  std::vector<double> step_s;
  for (const StepSlice& slice : result.slices) {
    EXPECT_EQ(slice.num_seqs, step_s.size() < 3 ? 4 : 1);
    step_s.push_back(static_cast<double>(slice.end_ns - slice.start_ns) / 1e9);
  }
  const double four = step_s[0] + step_s[1] + step_s[2];  // time with 4 sequences
  const double one = step_s[3] + step_s[4];
  EXPECT_EQ(p.max_num_seqs, 8);
  EXPECT_NEAR(p.mean_batch, (4.0 * four + one) / (four + one), 1e-12);
  EXPECT_EQ(p.p99_batch, 4);  // the 4-sequence steps hold more than 1% of the step time
  EXPECT_EQ(p.max_batch, 4);
  // 100 prompt tokens (then 101, 102 with the decodes) in blocks of 16: 7 blocks a sequence.
  const auto blocks = static_cast<double>(s.pools[0].kv.num_gpu_blocks);
  EXPECT_DOUBLE_EQ(p.peak_kv_usage, 28.0 / blocks);
  EXPECT_NEAR(p.mean_kv_usage, (28.0 * four + 7.0 * one) / (four + one) / blocks, 1e-15);
}

TEST(Load, TimelineKeepsWhatHappensInsideAnInterval) {
  // Four requests finish well inside the first second: at its end nothing runs.
  const TempDir dir("load_timeline");
  std::vector<Request> requests;
  for (int64_t i = 0; i < 4; ++i) requests.push_back(make_request(i, 0.0, 100, 3));
  const Scenario s = one_replica(dir, requests);
  RunResult result = run_scenario(s);
  ASSERT_GE(result.timeline.size(), 1u);
  const TimelineRow& row = result.timeline[0];
  EXPECT_EQ(row.num_running, 0);
  EXPECT_EQ(row.max_running, 4);
  EXPECT_EQ(row.max_queue_depth, 4);  // all four delivered before the first step
  EXPECT_EQ(row.queue_depth, 0);
  // Running: 4 from the first step's start (t = 0) until the last step ends, when they finish.
  const int64_t end_ns = result.records[0].finish_ns;
  const double length_s = static_cast<double>(row.end_ns - row.start_ns) / 1e9;
  EXPECT_NEAR(row.mean_running, 4.0 * static_cast<double>(end_ns) / 1e9 / length_s, 1e-9);
  EXPECT_DOUBLE_EQ(row.mean_queue_depth, 0.0);  // delivered and scheduled at the same instant
  const double blocks = static_cast<double>(s.pools[0].kv.num_gpu_blocks);
  EXPECT_DOUBLE_EQ(row.max_kv_usage, 28.0 / blocks);
  EXPECT_EQ(row.kv_usage, 0.0);
}

TEST(Load, IntervalMaximaHoldTheEndSamplesAndTheMeans) {
  // A busy multi-replica run with an autoscaler: maxima are never below the end sample or the
  // mean.
  nlohmann::json pool =
      h100_pool(2, {{"policy", "continuous"}, {"max_num_seqs", 16}, {"static_batch_size", 16}});
  const Scenario s = scenario_from(
      {{"seed", 3},
       {"timeline_interval_s", 2.0},
       {"workloads",
        {{{"generator",
           {{"kind", "poisson"},
            {"rate", 20},
            {"duration_s", 30},
            {"prompt", {{"dist", "lognormal"}, {"median", 800}, {"sigma", 0.5}, {"max", 4000}}},
            {"output", {{"dist", "lognormal"}, {"median", 120}, {"sigma", 0.5}, {"max", 400}}}}}}}},
       {"fleet", {{"pools", {pool}}}}});
  RunResult result = run_scenario(s);
  int64_t peak_running = 0;
  for (const TimelineRow& row : result.timeline) {
    EXPECT_GE(row.max_running, row.num_running);
    EXPECT_GE(row.max_queue_depth, row.queue_depth);
    EXPECT_GE(row.max_kv_usage, row.kv_usage);
    EXPECT_GE(row.max_queued_at_router, row.num_queued_at_router);
    EXPECT_LE(row.mean_running, static_cast<double>(row.max_running) + 1e-9);
    EXPECT_LE(row.mean_queue_depth, static_cast<double>(row.max_queue_depth) + 1e-9);
    EXPECT_LE(row.mean_kv_usage, row.max_kv_usage + 1e-12);
    EXPECT_LE(row.max_running, 2 * 16);
    peak_running = std::max(peak_running, row.max_running);
  }
  const RunMetrics m = compute_metrics(s, result);
  EXPECT_GT(peak_running, 0);
  EXPECT_LE(m.pools[0].max_batch, 16);
  EXPECT_LE(m.pools[0].p99_batch, m.pools[0].max_batch);
  EXPECT_GT(*m.pools[0].mfu, 0.0);
  EXPECT_LT(*m.pools[0].mbu, 1.0);
}

}  // namespace
}  // namespace tidal::sim
