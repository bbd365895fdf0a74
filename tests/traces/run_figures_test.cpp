#include "traces/run_figures.h"

#include <gtest/gtest.h>

namespace tidal::traces {
namespace {

TEST(RunFigures, NearestRankPositionIsCeilOfTheShareClamped) {
  struct Case {
    double p;
    int64_t n, position;
  };
  for (const Case& c : {Case{50, 1, 1}, Case{50, 10, 5}, Case{90, 10, 9}, Case{99, 10, 10},
                        Case{99, 100, 99}, Case{50, 3, 2}, Case{100, 7, 7}, Case{0.001, 5, 1}}) {
    EXPECT_EQ(nearest_rank_position(c.p, c.n), c.position) << "p " << c.p << ", n " << c.n;
  }
}

TEST(RunFigures, EmptyLatencySummaryPrintsNulls) {
  EXPECT_EQ(latency_summary_json(LatencySummary{}).dump(),
            R"({"count":0,"mean_s":null,"p50_s":null,"p90_s":null,"p99_s":null,"max_s":null})");
  const LatencySummary s{4, 0.25, 0.5, 0.75, 1.0, 2.0};
  EXPECT_EQ(latency_summary_json(s).dump(),
            R"({"count":4,"mean_s":0.25,"p50_s":0.5,"p90_s":0.75,"p99_s":1.0,"max_s":2.0})");
}

TEST(RunFigures, RequestFiguresPrintInTheDocumentedKeyOrder) {
  RequestFigures f;
  f.rejections = {{"too_long", 1}, {"zz", 1}};
  f.ttft = LatencySummary{3, 0.5, 0.5, 0.5, 0.5, 0.5};
  nlohmann::ordered_json j = request_figures_json(f);
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "duration_s", "num_requests", "num_finished", "num_rejected", "rejections",
                      "num_input_tokens", "num_output_tokens", "num_preemptions",
                      "num_prefix_hit_tokens", "request_throughput_rps", "input_tokens_per_s",
                      "output_tokens_per_s", "ttft", "tpot", "itl", "e2e", "queue_delay"}));
  EXPECT_EQ(j["rejections"].dump(), R"({"too_long":1,"zz":1})");
  EXPECT_EQ(j["ttft"]["count"], 3);
  EXPECT_TRUE(j["tpot"]["p99_s"].is_null());
}

}  // namespace
}  // namespace tidal::traces
