#include "sim/metrics.h"

#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::make_request;
using testing::scenario_from;

constexpr int64_t kSecond = 1'000'000'000;

RequestRecord finished(int64_t arrival, int64_t scheduled, int64_t first, int64_t finish,
                       int64_t tokens) {
  RequestRecord r;
  r.arrival_ns = arrival;
  r.first_scheduled_ns = scheduled;
  r.first_token_ns = first;
  r.last_token_ns = finish;
  r.finish_ns = finish;
  r.num_output_tokens_done = tokens;
  r.replica = 0;
  r.status = RequestStatus::finished;
  return r;
}

TEST(Metrics, RequestLatencies) {
  const RequestRecord r = finished(1 * kSecond, 2 * kSecond, 3 * kSecond, 7 * kSecond, 5);
  const RequestLatency lat = request_latency(r);
  EXPECT_DOUBLE_EQ(*lat.queue_delay_s, 1.0);
  EXPECT_DOUBLE_EQ(*lat.ttft_s, 2.0);
  EXPECT_DOUBLE_EQ(*lat.e2e_s, 6.0);
  EXPECT_DOUBLE_EQ(*lat.tpot_s, 1.0);  // 4 s over 4 gaps
  const RequestLatency single = request_latency(finished(0, 0, kSecond, kSecond, 1));
  EXPECT_FALSE(single.tpot_s);
  SloBounds slo;
  slo.tpot_s = 0.001;
  EXPECT_TRUE(meets_slo(finished(0, 0, kSecond, kSecond, 1), single, slo));
  RequestRecord rejected;
  rejected.status = RequestStatus::rejected;
  EXPECT_FALSE(meets_slo(rejected, request_latency(rejected), SloBounds{}));
}

TEST(Metrics, RunMetricsAndCosts) {
  nlohmann::json pool = h100_pool(2);
  pool["tp"] = 2;
  pool["price_per_gpu_hour"] = 2.0;
  const Scenario s = scenario_from(
      {{"workloads",
        {{{"generator", {{"kind", "poisson"}}}, {"slo_class", "web"}, {"slo", {{"ttft_s", 1.5}}}},
         {{"generator", {{"kind", "poisson"}}}, {"slo_class", "batch"}}}},
       {"fleet", {{"pools", {pool}}}}});
  RunResult r;
  r.table.requests = {make_request(0, 0, 100, 5), make_request(1, 0, 200, 3),
                      make_request(2, 0, 300, 4), make_request(3, 0, 50, 2)};
  r.table.arrival_ns = {0, 0, 0, 0};
  r.table.workload = {0, 0, 1, 1};
  r.table.slo_class = {1, 1, 0, 0};  // web, web, batch, batch
  r.records = {finished(0, 0, 1 * kSecond, 5 * kSecond, 5),
               finished(0, 0, 2 * kSecond, 4 * kSecond, 3),
               finished(0, kSecond, 3 * kSecond, 9 * kSecond, 4), RequestRecord{}};
  r.records[3].status = RequestStatus::rejected;
  r.records[3].reason = "exceeds_max_model_len";
  r.records[0].num_preemptions = 2;
  r.records[1].num_prefix_hit_tokens = 64;
  r.itl.add(0.5);
  r.end_ns = 3600 * kSecond;
  r.replicas = {ReplicaSummary{}, ReplicaSummary{}};
  r.replicas[0].busy_ns = 1800 * kSecond;
  r.replicas[1].busy_ns = 900 * kSecond;
  r.replicas[0].warm_ns = 3600 * kSecond;
  r.replicas[1].warm_ns = 3600 * kSecond;
  // The ledger's figures for 2 replicas x tp 2 for one hour at $2 per GPU-hour.
  r.fleet.billing.fleet.total = 8'000'000;
  r.fleet.billing.fleet.gpu_hours_billed = 4.0;
  r.fleet.billing.by_pool = {r.fleet.billing.fleet};
  r.fleet.peak_replicas = {2};

  const RunMetrics m = compute_metrics(s, r);
  EXPECT_EQ(m.num_requests, 4);
  EXPECT_EQ(m.num_finished, 3);
  EXPECT_EQ(m.num_rejected, 1);
  EXPECT_EQ(m.num_input_tokens, 600);
  EXPECT_EQ(m.num_output_tokens, 12);
  EXPECT_EQ(m.num_preemptions, 2);
  EXPECT_EQ(m.num_prefix_hit_tokens, 64);
  EXPECT_DOUBLE_EQ(m.ttft.p50, 2.0);
  EXPECT_DOUBLE_EQ(m.ttft.p99, 3.0);
  EXPECT_DOUBLE_EQ(m.ttft.mean, 2.0);
  EXPECT_DOUBLE_EQ(m.e2e.max, 9.0);
  EXPECT_DOUBLE_EQ(m.queue_delay.max, 1.0);
  EXPECT_EQ(m.itl.count, 1);
  // web: both meet ttft <= 1.5? no: 1 s yes, 2 s no. batch: no bounds, 1 finished of 2.
  ASSERT_EQ(m.classes.size(), 2u);
  EXPECT_EQ(m.classes[0].name, "batch");
  EXPECT_EQ(m.classes[0].num_slo_met, 1);
  EXPECT_DOUBLE_EQ(m.classes[0].slo_attainment, 0.5);
  EXPECT_EQ(m.classes[1].name, "web");
  EXPECT_EQ(m.classes[1].num_slo_met, 1);
  EXPECT_EQ(m.num_slo_met, 2);
  EXPECT_DOUBLE_EQ(m.slo_attainment, 0.5);
  EXPECT_DOUBLE_EQ(m.goodput_rps, 2.0 / 3600.0);
  EXPECT_DOUBLE_EQ(m.output_tokens_per_s, 12.0 / 3600.0);
  // 2 replicas x tp 2 = 4 GPUs for one hour at $2.
  EXPECT_DOUBLE_EQ(m.gpu_hours, 4.0);
  EXPECT_DOUBLE_EQ(m.dollars, 8.0);
  EXPECT_DOUBLE_EQ(m.utilization, 2700.0 / 7200.0);
  EXPECT_DOUBLE_EQ(*m.dollars_per_1m_input_tokens, 8.0 / 600e-6);
  EXPECT_DOUBLE_EQ(*m.dollars_per_1m_output_tokens, 8.0 / 12e-6);
  ASSERT_EQ(m.rejections.size(), 1u);
  EXPECT_EQ(m.rejections[0].first, "exceeds_max_model_len");
  ASSERT_EQ(m.pools.size(), 1u);
  EXPECT_EQ(m.pools[0].num_gpus, 4);
}

}  // namespace
}  // namespace tidal::sim
