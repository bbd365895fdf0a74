// Open-loop generators, batch, mix and file workloads: rates, burstiness, knobs, horizons,
// determinism and spec errors.
#include "traces/generators.h"

#include <sstream>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "test_util.h"
#include "traces/stats.h"
#include "traces/writer.h"

namespace tidal::traces {
namespace {

std::string error_of(const nlohmann::json& spec, const std::string& path = "generator") {
  try {
    generate(spec, 1, path);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

std::string jsonl_of(const std::vector<Request>& requests) {
  std::ostringstream out;
  write_jsonl(requests, out);
  return out.str();
}

void expect_sorted_with_dense_ids(const std::vector<Request>& requests) {
  for (size_t i = 0; i < requests.size(); ++i) {
    ASSERT_EQ(requests[i].id, static_cast<int64_t>(i));
    if (i > 0) {
      ASSERT_GE(requests[i].arrival_s, requests[i - 1].arrival_s);
    }
  }
}

double mean_rate_over(const std::vector<Request>& requests, double duration_s) {
  return static_cast<double>(requests.size()) / duration_s;
}

TEST(Generators, PoissonMeanRateWithinThreePercent) {
  const auto requests = generate({{"kind", "poisson"}, {"rate", 10}, {"duration_s", 10000}}, 1);
  EXPECT_NEAR(mean_rate_over(requests, 10000), 10.0, 0.3);
  expect_sorted_with_dense_ids(requests);
  EXPECT_LT(requests.back().arrival_s, 10000);
  EXPECT_EQ(requests[0].tenant, "default");
  EXPECT_EQ(requests[0].slo_class, "interactive");
}

TEST(Generators, GammaMeanRateAndBurstierGaps) {
  const auto requests =
      generate({{"kind", "gamma"}, {"rate", 10}, {"cv", 3}, {"duration_s", 20000}}, 2);
  EXPECT_NEAR(mean_rate_over(requests, 20000), 10.0, 0.3);
  // Coefficient of variation of the gaps.
  double sum = 0.0;
  double sum_squares = 0.0;
  for (size_t i = 1; i < requests.size(); ++i) {
    const double gap = requests[i].arrival_s - requests[i - 1].arrival_s;
    sum += gap;
    sum_squares += gap * gap;
  }
  const auto n = static_cast<double>(requests.size() - 1);
  const double mean_gap = sum / n;
  EXPECT_NEAR(std::sqrt(sum_squares / n - mean_gap * mean_gap) / mean_gap, 3.0, 0.15);
}

TEST(Generators, BurstyHitsMeanRateAndPeakToMeanAtTheBurstTimeScale) {
  // Windows of 60 s are a fifth of the mean burst, and the horizon spans 40 on/off cycles so
  // the quiet stretches cut at the trace's ends barely move the mean (docs/generators.md).
  const auto requests = generate({{"kind", "bursty"},
                                  {"rate", 10},
                                  {"peak_to_mean", 5},
                                  {"mean_burst_s", 300},
                                  {"duration_s", 48000}},
                                 3);
  EXPECT_NEAR(mean_rate_over(requests, 48000), 10.0, 0.3);
  const TraceStats stats = compute_stats(requests);
  ASSERT_EQ(stats.window_rates[2].window_s, 60.0);
  EXPECT_NEAR(stats.window_rates[2].peak_to_mean, 5.0, 0.5);
  EXPECT_EQ(stats.window_rates[2].p50, 0.0);  // off most of the time
}

TEST(Generators, BurstyWithPeakToMeanOneIsPoisson) {
  const auto requests =
      generate({{"kind", "bursty"}, {"rate", 5}, {"peak_to_mean", 1}, {"num_requests", 20000}}, 4);
  ASSERT_EQ(requests.size(), 20000u);
  EXPECT_NEAR(mean_rate_over(requests, requests.back().arrival_s), 5.0, 0.15);
}

TEST(Generators, DiurnalFollowsItsDailyCurve) {
  const double period_s = 3600;
  const auto requests = generate({{"kind", "diurnal"},
                                  {"peak_rate", 20},
                                  {"trough_rate", 4},
                                  {"period_s", period_s},
                                  {"peak_time_s", 1800},
                                  {"noise_interval_s", 60},
                                  {"duration_s", 4 * period_s}},
                                 5);
  EXPECT_NEAR(mean_rate_over(requests, 4 * period_s), 12.0, 0.36);
  int64_t near_peak = 0;
  int64_t near_trough = 0;
  for (const Request& request : requests) {
    const double phase_s = std::fmod(request.arrival_s, period_s);
    if (std::abs(phase_s - 1800) < 100) ++near_peak;
    if (phase_s < 100 || phase_s > period_s - 100) ++near_trough;
  }
  // Over +-100 s the curve averages about 19.9 req/s at the peak and 4.1 at the trough.
  EXPECT_NEAR(static_cast<double>(near_peak) / (4 * 200), 19.9, 2.0);
  EXPECT_NEAR(static_cast<double>(near_trough) / (4 * 200), 4.1, 0.6);
}

TEST(Generators, BatchWaves) {
  const auto requests = generate({{"kind", "batch"},
                                  {"num_requests", 10},
                                  {"num_waves", 3},
                                  {"wave_interval_s", 100},
                                  {"prompt", 100},
                                  {"output", 10}},
                                 6);
  ASSERT_EQ(requests.size(), 10u);
  const std::vector<double> expected = {0, 0, 0, 0, 100, 100, 100, 200, 200, 200};
  for (size_t i = 0; i < requests.size(); ++i) EXPECT_EQ(requests[i].arrival_s, expected[i]);
  EXPECT_EQ(requests[0].slo_class, "batch");
  EXPECT_EQ(requests[0].prompt_tokens, 100);
  const auto spread =
      generate({{"kind", "batch"}, {"num_requests", 50}, {"spread_s", 10}, {"tenant", "etl"}}, 6);
  expect_sorted_with_dense_ids(spread);
  EXPECT_LT(spread.back().arrival_s, 10.0);
  EXPECT_EQ(spread[0].tenant, "etl");
}

TEST(Generators, SameSeedSameBytesOtherSeedOtherTrace) {
  const nlohmann::json spec = {{"kind", "gamma"}, {"rate", 3}, {"cv", 2}, {"duration_s", 300}};
  EXPECT_EQ(jsonl_of(generate(spec, 9)), jsonl_of(generate(spec, 9)));
  EXPECT_NE(jsonl_of(generate(spec, 9)), jsonl_of(generate(spec, 10)));
}

TEST(Generators, OutputIsPinnedForAFixedSeed) {
  // Guards determinism across standard libraries and refactorings.
  const auto requests = generate({{"kind", "poisson"}, {"rate", 1}, {"num_requests", 3}}, 2024);
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(jsonl_of(requests),
            "{\"id\":0,\"arrival_s\":1.9394108174828126,\"prompt_tokens\":2605,"
            "\"output_tokens\":397,\"tenant\":\"default\",\"slo_class\":\"interactive\"}\n"
            "{\"id\":1,\"arrival_s\":2.009569538568023,\"prompt_tokens\":1086,"
            "\"output_tokens\":178,\"tenant\":\"default\",\"slo_class\":\"interactive\"}\n"
            "{\"id\":2,\"arrival_s\":2.2307197905641623,\"prompt_tokens\":2765,"
            "\"output_tokens\":544,\"tenant\":\"default\",\"slo_class\":\"interactive\"}\n");
}

TEST(Generators, LengthDistributionsDoNotMoveArrivals) {
  const auto a = generate({{"kind", "poisson"}, {"rate", 2}, {"duration_s", 100}}, 1);
  const auto b = generate(
      {{"kind", "poisson"}, {"rate", 2}, {"duration_s", 100}, {"prompt", 5}, {"output", 7}}, 1);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].arrival_s, b[i].arrival_s);
  EXPECT_EQ(b[0].prompt_tokens, 5);
}

TEST(Generators, TimeRateAndLengthScaleKnobs) {
  const auto base =
      generate({{"kind", "poisson"}, {"rate", 2}, {"duration_s", 500}, {"prompt", 100}}, 1);
  const auto stretched = generate({{"kind", "poisson"},
                                   {"rate", 2},
                                   {"duration_s", 1000},
                                   {"time_scale", 2},
                                   {"prompt", 100},
                                   {"length_scale", 0.5}},
                                  1);
  ASSERT_EQ(base.size(), stretched.size());
  for (size_t i = 0; i < base.size(); ++i) {
    EXPECT_DOUBLE_EQ(stretched[i].arrival_s, 2 * base[i].arrival_s);
    EXPECT_EQ(stretched[i].prompt_tokens, 50);
  }
  const auto faster =
      generate({{"kind", "poisson"}, {"rate", 2}, {"duration_s", 5000}, {"rate_scale", 3}}, 1);
  EXPECT_NEAR(mean_rate_over(faster, 5000), 6.0, 0.18);
}

TEST(Generators, NumRequestsInsteadOfDuration) {
  const auto requests = generate({{"kind", "poisson"}, {"rate", 50}, {"num_requests", 1234}}, 1);
  EXPECT_EQ(requests.size(), 1234u);
}

TEST(Generators, MixMergesWorkloadsByTime) {
  const nlohmann::json spec = {
      {"kind", "mix"},
      {"duration_s", 2000},
      {"slo_class", "interactive"},
      {"workloads",
       {{{"kind", "poisson"}, {"rate", 3}, {"tenant", "a"}},
        {{"kind", "poisson"}, {"rate", 1}, {"tenant", "b"}, {"slo_class", "batch"}},
        {{"kind", "batch"}, {"num_requests", 100}, {"tenant", "c"}}}}};
  const auto requests = generate(spec, 8);
  expect_sorted_with_dense_ids(requests);
  const TraceStats stats = compute_stats(requests);
  EXPECT_NEAR(static_cast<double>(stats.requests_per_tenant.at("a")) / 2000, 3.0, 0.25);
  EXPECT_NEAR(static_cast<double>(stats.requests_per_tenant.at("b")) / 2000, 1.0, 0.12);
  EXPECT_EQ(stats.requests_per_tenant.at("c"), 100);
  EXPECT_EQ(stats.requests_per_slo_class.at("batch"), stats.requests_per_tenant.at("b"));
  // The mix's class fills every workload that sets none, the batch one included.
  EXPECT_EQ(stats.requests_per_slo_class.at("interactive"),
            stats.requests_per_tenant.at("a") + stats.requests_per_tenant.at("c"));
  EXPECT_LT(requests.back().arrival_s, 2000);
}

TEST(Generators, FileWorkloadWithKnobs) {
  const std::string path = testing::shared_trace(testing::kAzureConv);
  const auto requests = generate({{"kind", "file"},
                                  {"path", path},
                                  {"rate_scale", 2},
                                  {"tenant", "azure"},
                                  {"duration_s", 1000}},
                                 0);
  const auto original = generate({{"kind", "file"}, {"path", path}}, 0);
  ASSERT_EQ(original.size(), 19366u);
  EXPECT_EQ(original[0].tenant, "");  // kept from the file unless given
  ASSERT_FALSE(requests.empty());
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_DOUBLE_EQ(requests[i].arrival_s, original[i].arrival_s / 2);
    EXPECT_EQ(requests[i].tenant, "azure");
  }
  EXPECT_LT(requests.back().arrival_s, 1000);
  EXPECT_GE(original[requests.size()].arrival_s / 2, 1000);
  const auto relative =
      generate({{"kind", "file"}, {"path", testing::kAzureConv}, {"num_requests", 5}}, 0,
               "generator", std::string(TIDAL_SHARED_DIR) + "/traces");
  EXPECT_EQ(relative.size(), 5u);
}

TEST(Generators, SpecErrorsNameTheJsonPath) {
  EXPECT_EQ(error_of({{"kind", "poisson"}, {"rte", 5}, {"duration_s", 10}}),
            "generator.rate: missing (required)");
  EXPECT_EQ(error_of({{"kind", "poisson"}, {"rate", 5}, {"rte", 5}, {"duration_s", 10}}),
            "generator.rte: unknown key (known here: duration_s, kind, length_scale, "
            "num_requests, output, prompt, rate, rate_scale, region, slo_class, tenant, "
            "time_scale)");
  EXPECT_EQ(
      error_of({{"kind", "poisson"}, {"rate", -1}, {"duration_s", 10}}, "workloads[0].generator"),
      "workloads[0].generator.rate: must be > 0, got -1");
  EXPECT_EQ(error_of({{"kind", "poisson"}, {"rate", 1}}),
            "generator.duration_s: missing (give duration_s or num_requests)");
  EXPECT_EQ(error_of({{"kind", "poisson"}, {"rate", 1}, {"duration_s", 5}, {"num_requests", 5}}),
            "generator.num_requests: give duration_s or num_requests, not both");
  EXPECT_EQ(error_of({{"kind", "batch"}, {"duration_s", 5}, {"num_requests", 5}}),
            "generator.duration_s: batch takes num_requests, not duration_s");
  EXPECT_EQ(error_of({{"kind", "poisson"}, {"rate", "fast"}, {"duration_s", 5}}),
            "generator.rate: must be a number, got \"fast\"");
  EXPECT_EQ(error_of({{"kind", "poison"}}),
            "generator.kind: unknown generator \"poison\" (one of poisson, gamma, bursty, "
            "diurnal, batch, closed_loop, sessions, agent, mix, file)");
  EXPECT_EQ(error_of({{"kind", "mix"}, {"workloads", {{{"kind", "poisson"}, {"rate", 0}}}}}),
            "generator.workloads[0].rate: must be > 0, got 0");
  EXPECT_EQ(error_of({{"kind", "poisson"}, {"rate", 1e9}, {"duration_s", 1e6}}),
            "generator: would generate about 1e+15 requests; at most 50000000 per workload");
  EXPECT_EQ(error_of({{"kind", "poisson"},
                      {"rate", 1},
                      {"duration_s", 5},
                      {"prompt", {{"dist", "fixed"}, {"valu", 1}}}}),
            "generator.prompt.value: missing (required)");
  EXPECT_EQ(error_of(nlohmann::json::array()), "generator: must be a JSON object, got []");
}

}  // namespace
}  // namespace tidal::traces
