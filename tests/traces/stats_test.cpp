// Trace statistics: exact nearest-rank percentiles, window rates, prefix reuse, and the
// published figures of the real traces.
#include "traces/stats.h"

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "test_util.h"
#include "traces/reader.h"

namespace tidal::traces {
namespace {

Request make_request(int64_t id, double arrival_s, int64_t prompt_tokens, int64_t output_tokens) {
  Request request;
  request.id = id;
  request.arrival_s = arrival_s;
  request.prompt_tokens = prompt_tokens;
  request.output_tokens = output_tokens;
  return request;
}

TEST(Stats, NearestRankPercentiles) {
  const std::vector<int64_t> values = {15, 20, 35, 40, 50};
  EXPECT_EQ(nearest_rank(values, 5), 15);
  EXPECT_EQ(nearest_rank(values, 30), 20);
  EXPECT_EQ(nearest_rank(values, 40), 20);
  EXPECT_EQ(nearest_rank(values, 50), 35);
  EXPECT_EQ(nearest_rank(values, 100), 50);
  std::vector<int64_t> hundred(100);
  for (int64_t i = 0; i < 100; ++i) hundred[static_cast<size_t>(i)] = i + 1;
  EXPECT_EQ(nearest_rank(hundred, 99), 99);
  EXPECT_EQ(nearest_rank(hundred, 90), 90);
}

TEST(Stats, MooncakePrefixReuseIs0366Over12031Requests) {
  const TraceStats stats = compute_stats(read_trace(testing::shared_trace(testing::kMooncake)));
  EXPECT_EQ(stats.num_requests, 12031);
  ASSERT_TRUE(stats.prefix_reuse.has_value());
  EXPECT_EQ(stats.prefix_reuse->block_tokens, 512);
  EXPECT_EQ(stats.prefix_reuse->num_blocks, 288500);
  EXPECT_NEAR(stats.prefix_reuse->ratio, 0.366, 0.0005);  // README: 36.64%
  EXPECT_NEAR(stats.duration_s, 3536.999, 1e-9);
  EXPECT_EQ(stats.prompt_tokens.p50, 6909);
  EXPECT_EQ(stats.prompt_tokens.p99, 85401);
  EXPECT_EQ(stats.prompt_tokens.max, 126195);
  EXPECT_EQ(stats.output_tokens.max, 2000);
  EXPECT_FALSE(stats.dag.has_value());
}

TEST(Stats, AzureConvMatchesThePublishedFigures) {
  const TraceStats stats = compute_stats(read_trace(testing::shared_trace(testing::kAzureConv)));
  EXPECT_EQ(stats.num_requests, 19366);
  EXPECT_NEAR(stats.duration_s, 3501.7, 0.05);
  EXPECT_NEAR(stats.mean_rate, 5.53, 0.005);
  EXPECT_EQ(stats.prompt_tokens.p50, 1020);
  EXPECT_NEAR(stats.prompt_tokens.mean, 1155, 0.5);
  EXPECT_EQ(stats.prompt_tokens.p99, 4142);
  EXPECT_EQ(stats.prompt_tokens.max, 14050);
  EXPECT_EQ(stats.output_tokens.p50, 129);
  EXPECT_EQ(stats.output_tokens.p99, 601);
  EXPECT_EQ(stats.output_tokens.max, 1000);
  EXPECT_FALSE(stats.prefix_reuse.has_value());
  EXPECT_EQ(stats.requests_per_tenant.at(""), 19366);
}

TEST(Stats, WindowRatesCountEmptyWindows) {
  // Arrivals at 0, 0.5, 1.2 and 9.9 s: ten 1 s windows with counts 2,1,0,...,0,1.
  std::vector<Request> requests = {make_request(0, 0.0, 1, 1), make_request(1, 0.5, 1, 1),
                                   make_request(2, 1.2, 1, 1), make_request(3, 9.9, 1, 1)};
  const TraceStats stats = compute_stats(requests);
  ASSERT_EQ(stats.window_rates.size(), 3u);
  const WindowRateStats& one_second = stats.window_rates[0];
  EXPECT_EQ(one_second.window_s, 1.0);
  EXPECT_EQ(one_second.num_windows, 10);
  EXPECT_DOUBLE_EQ(one_second.mean, 0.4);
  EXPECT_EQ(one_second.p50, 0.0);
  EXPECT_EQ(one_second.p90, 1.0);
  EXPECT_EQ(one_second.p99, 2.0);
  EXPECT_EQ(one_second.max, 2.0);
  EXPECT_DOUBLE_EQ(one_second.peak_to_mean, 5.0);
  const WindowRateStats& ten_seconds = stats.window_rates[1];
  EXPECT_EQ(ten_seconds.num_windows, 1);
  EXPECT_DOUBLE_EQ(ten_seconds.max, 0.4);
  EXPECT_DOUBLE_EQ(ten_seconds.peak_to_mean, 1.0);
  EXPECT_NEAR(stats.duration_s, 9.9, 1e-12);
  EXPECT_NEAR(stats.mean_rate, 4 / 9.9, 1e-12);
}

TEST(Stats, CountsTenantsClassesSessionsAndFailures) {
  std::vector<Request> requests(4);
  requests[0].tenant = "a";
  requests[1].tenant = "b";
  requests[2].tenant = "a";
  requests[0].slo_class = "interactive";
  requests[1].session_id = "s1";
  requests[2].session_id = "s1";
  requests[3].session_id = "s2";
  requests[3].failed = true;
  for (size_t i = 0; i < requests.size(); ++i) requests[i].id = static_cast<int64_t>(i);
  const TraceStats stats = compute_stats(requests);
  EXPECT_EQ(stats.requests_per_tenant,
            (std::map<std::string, int64_t>{{"", 1}, {"a", 2}, {"b", 1}}));
  EXPECT_EQ(stats.requests_per_slo_class,
            (std::map<std::string, int64_t>{{"", 3}, {"interactive", 1}}));
  EXPECT_EQ(stats.num_sessions, 2);
  EXPECT_EQ(stats.num_session_requests, 3);
  EXPECT_EQ(stats.num_failed, 1);
}

TEST(Stats, PrefixReuseNeedsTheWholeLeadingPrefix) {
  std::vector<Request> requests(3);
  requests[0].prefix_blocks = {1, 2, 3};
  requests[1].prefix_blocks = {1, 2, 4, 5};  // 1,2 reused
  requests[2].prefix_blocks = {9, 2, 3};     // 2,3 seen, but not after 9: none reused
  for (Request& request : requests) {
    request.prefix_block_tokens = 16;
    request.prompt_tokens = 16 * static_cast<int64_t>(request.prefix_blocks.size());
  }
  const TraceStats stats = compute_stats(requests);
  ASSERT_TRUE(stats.prefix_reuse.has_value());
  EXPECT_EQ(stats.prefix_reuse->num_blocks, 10);
  EXPECT_EQ(stats.prefix_reuse->num_reused_blocks, 2);
  EXPECT_DOUBLE_EQ(stats.prefix_reuse->ratio, 0.2);
}

TEST(Stats, DagCriticalPath) {
  // 0 -> {1, 2} -> 3, and 4 alone: one DAG of 4 requests; longest chain 0,2,3.
  std::vector<Request> requests = {make_request(0, 0, 1, 10), make_request(1, 0, 1, 5),
                                   make_request(2, 0, 1, 20), make_request(3, 0, 1, 1),
                                   make_request(4, 0, 1, 100)};
  requests[1].deps = {0};
  requests[2].deps = {0};
  requests[3].deps = {1, 2};
  const TraceStats stats = compute_stats(requests);
  ASSERT_TRUE(stats.dag.has_value());
  EXPECT_EQ(stats.dag->num_dag_requests, 4);
  EXPECT_EQ(stats.dag->num_dags, 1);
  EXPECT_EQ(stats.dag->critical_path_requests, 3);
  EXPECT_EQ(stats.dag->critical_path_output_tokens, 31);
}

TEST(Stats, JsonAndTextCarryTheFigures) {
  const TraceStats stats = compute_stats(read_trace(testing::shared_trace(testing::kMooncake)));
  const nlohmann::json json = stats_to_json(stats);
  EXPECT_EQ(json["num_requests"], 12031);
  EXPECT_EQ(json["prefix_reuse"]["num_blocks"], 288500);
  EXPECT_EQ(json["window_rates"].size(), 3u);
  EXPECT_EQ(json["window_rates"][2]["window_s"], 60.0);
  EXPECT_TRUE(json["dag"].is_null());
  const std::string text = format_stats(stats);
  EXPECT_NE(text.find("12031"), std::string::npos);
  EXPECT_NE(text.find("prefix reuse            0.3664"), std::string::npos);
}

TEST(Stats, EmptyTrace) {
  const TraceStats stats = compute_stats({});
  EXPECT_EQ(stats.num_requests, 0);
  EXPECT_EQ(stats.duration_s, 0.0);
  EXPECT_EQ(stats.window_rates.size(), 3u);
  EXPECT_EQ(stats.window_rates[0].num_windows, 0);
}

}  // namespace
}  // namespace tidal::traces
