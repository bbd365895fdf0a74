#include "sim/summary_table.h"

#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace tidal::sim {
namespace {

TEST(SummaryTable, ShowsRequestsLatencySloAndCost) {
  nlohmann::json pool = testing::h100_pool(4);
  pool["name"] = "main";
  const Scenario s = testing::scenario_from(
      {{"name", "demo"},
       {"workloads",
        {{{"generator", {{"kind", "poisson"}}}, {"slo_class", "web"}, {"slo", {{"ttft_s", 1}}}}}},
       {"fleet", {{"pools", {pool}}}}});
  RunMetrics m;
  m.duration_s = 100.0;
  m.num_requests = 1234;
  m.num_finished = 1200;
  m.num_rejected = 34;
  m.request_throughput_rps = 12.0;
  m.input_tokens_per_s = 9876.4;
  m.output_tokens_per_s = 1500.0;
  m.ttft = LatencySummary{1200, 0.1, 0.05, 0.2, 0.9, 1.5};
  m.slo_attainment = 0.9;
  m.goodput_rps = 10.8;
  ClassMetrics web;
  web.name = "web";
  web.slo_attainment = 0.9;
  m.classes.push_back(web);
  m.gpu_hours = 0.111;
  m.dollars = 0.47;
  m.utilization = 0.5;
  m.dollars_per_1m_input_tokens = 0.5;
  const std::string text = format_summary_table(s, m);
  EXPECT_NE(text.find("scenario demo: 4 x llama-3-8b (tp 1 on H100-SXM, $4.25/GPU-h)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("requests    1234 (1200 finished, 34 rejected) over 100.0 s simulated"),
            std::string::npos);
  EXPECT_NE(text.find("throughput  12.00 req/s   input 9876 tok/s   output 1500 tok/s"),
            std::string::npos);
  EXPECT_NE(text.find("  TTFT           0.100     0.050     0.200     0.900"), std::string::npos);
  EXPECT_NE(text.find("  TPOT               -         -         -         -"), std::string::npos);
  EXPECT_NE(text.find("SLO         90.0% met (web 90.0%)   goodput 10.80 req/s"),
            std::string::npos);
  EXPECT_NE(text.find("cost        0.11 GPU-hours   $0.47   utilization 50.0%"), std::string::npos);
  EXPECT_NE(text.find("$0.500 / 1M input tokens   - / 1M output tokens"), std::string::npos);
}

}  // namespace
}  // namespace tidal::sim
