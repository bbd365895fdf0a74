#include "sim/summary_table.h"

#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace tidal::sim {
namespace {

Scenario demo_scenario() {
  nlohmann::json pool = testing::h100_pool(4);
  pool["name"] = "main";
  return testing::scenario_from(
      {{"name", "demo"},
       {"workloads",
        {{{"generator", {{"kind", "poisson"}}}, {"slo_class", "web"}, {"slo", {{"ttft_s", 1}}}}}},
       {"fleet", {{"pools", {pool}}}}});
}

RunMetrics demo_metrics() {
  RunMetrics m;
  m.duration_s = 100.0;
  m.num_requests = 12345;
  m.num_finished = 12311;
  m.num_rejected = 34;
  m.rejections = {{"exceeds_kv_capacity", 30}, {"unfinished when the simulation ended", 4}};
  m.request_throughput_rps = 123.11;
  m.input_tokens_per_s = 9876.4;
  m.output_tokens_per_s = 1500.0;
  m.ttft = LatencySummary{12311, 0.1, 0.05, 0.2, 0.9, 1.5};
  m.tpot = LatencySummary{12311, 0.0024, 0.0023, 0.0031, 0.0412, 0.05};
  m.num_slo_met = 11111;
  m.slo_attainment = 11111.0 / 12345.0;
  m.finished_slo_share = 11111.0 / 12311.0;
  m.goodput_rps = 111.11;
  ClassMetrics web;
  web.name = "web";
  web.slo_attainment = 11111.0 / 12345.0;
  m.classes.push_back(web);
  m.gpu_hours = 0.111;
  m.dollars = 1234.5;
  m.utilization = 0.975;
  m.mfu = 0.0123;
  m.mbu = 0.456;
  PoolMetrics p;
  p.name = "main";
  p.utilization = 0.975;
  p.max_num_seqs = 256;
  p.mean_batch = 3.25;
  p.p99_batch = 6;
  p.mean_kv_usage = 0.041;
  p.peak_kv_usage = 0.09;
  p.mfu = 0.0123;
  p.mbu = 0.456;
  m.pools.push_back(p);
  m.dollars_per_1m_input_tokens = 0.5;
  return m;
}

TEST(SummaryTable, ShowsRequestsLatencySloAndCost) {
  const std::string text = format_summary_table(demo_scenario(), demo_metrics());
  EXPECT_NE(text.find("scenario demo: 4 x llama-3-8b (tp 1 on H100-SXM, $4.25/GPU-h)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("throughput  123 req/s   input 9,876 tok/s   output 1,500 tok/s"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("cost        0.11 GPU-hours   $1,234.50"), std::string::npos) << text;
  EXPECT_NE(text.find("$0.500 / 1M input tokens   - / 1M output tokens"), std::string::npos)
      << text;
}

TEST(SummaryTable, PrintsLatenciesBelowOneSecondInMilliseconds) {
  const std::string text = format_summary_table(demo_scenario(), demo_metrics());
  EXPECT_NE(text.find("  TTFT          100 ms   50.0 ms    200 ms    900 ms"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  TPOT         2.40 ms   2.30 ms   3.10 ms   41.2 ms"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  ITL                -         -         -         -"), std::string::npos)
      << text;
}

TEST(SummaryTable, CountsHaveSeparatorsAndRejectionsTheirReasons) {
  const std::string text = format_summary_table(demo_scenario(), demo_metrics());
  EXPECT_NE(text.find("requests    12,345 (12,311 finished, 34 rejected: exceeds_kv_capacity 30, "
                      "unfinished when the simulation ended 4) over 100.0 s simulated"),
            std::string::npos)
      << text;
}

TEST(SummaryTable, SloOverAllRequestsBesideTheShareOfFinished) {
  const std::string text = format_summary_table(demo_scenario(), demo_metrics());
  // 11,111 / 12,345 = 90.0% of all (rejected count as missed); 11,111 / 12,311 = 90.3%.
  EXPECT_NE(text.find("SLO         90.0% of all requests met (web 90.0%), 90.3% of finished   "
                      "goodput 111 req/s"),
            std::string::npos)
      << text;
}

TEST(SummaryTable, ShowsLoadBesideTheBusyShare) {
  const std::string text = format_summary_table(demo_scenario(), demo_metrics());
  EXPECT_NE(text.find("load        busy share 97.5%   MFU 1.2%   MBU 45.6%"), std::string::npos)
      << text;
  EXPECT_NE(text.find("            main: batch mean 3.25 p99 6 of 256   KV mean 4.1% peak 9.0%   "
                      "MFU 1.2%   MBU 45.6%   busy share 97.5%"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("utilization"), std::string::npos) << text;
}

}  // namespace
}  // namespace tidal::sim
