// Length, count and time distributions of generator specs.
#include "traces/distribution.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "test_util.h"

namespace tidal::traces {
namespace {

std::vector<double> samples_of(const nlohmann::json& spec, int64_t num_samples,
                               const DistributionContext& context = {}) {
  const Distribution dist = Distribution::parse(spec, "generator.prompt", context);
  Rng rng(77);
  std::vector<double> values;
  for (int64_t i = 0; i < num_samples; ++i) values.push_back(dist.sample(rng));
  return values;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double mean_of(const std::vector<double>& values) {
  double sum = 0.0;
  for (const double value : values) sum += value;
  return sum / static_cast<double>(values.size());
}

std::string error_of(const nlohmann::json& spec, const DistributionContext& context = {}) {
  try {
    Distribution::parse(spec, "generator.prompt", context);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST(Distribution, FixedAndBareNumbers) {
  EXPECT_EQ(samples_of(512, 3), (std::vector<double>{512, 512, 512}));
  EXPECT_EQ(samples_of({{"dist", "fixed"}, {"value", 7}}, 2), (std::vector<double>{7, 7}));
}

TEST(Distribution, UniformIntegersStayInRange) {
  const std::vector<double> values =
      samples_of({{"dist", "uniform"}, {"min", 3}, {"max", 5}}, 3000);
  EXPECT_EQ(*std::min_element(values.begin(), values.end()), 3);
  EXPECT_EQ(*std::max_element(values.begin(), values.end()), 5);
  EXPECT_NEAR(mean_of(values), 4.0, 0.05);
}

TEST(Distribution, LognormalByMedianOrByMean) {
  EXPECT_NEAR(
      median_of(samples_of({{"dist", "lognormal"}, {"median", 1000}, {"sigma", 0.8}}, 50000)), 1000,
      20);
  EXPECT_NEAR(mean_of(samples_of({{"dist", "lognormal"}, {"mean", 500}, {"cv", 0.5}}, 100000)), 500,
              5);
}

TEST(Distribution, MinMaxClampAndScaleAfterIt) {
  DistributionContext context;
  context.scale = 2.0;
  const std::vector<double> values =
      samples_of({{"dist", "exponential"}, {"mean", 100}, {"min", 50}, {"max", 60}}, 1000, context);
  EXPECT_EQ(*std::min_element(values.begin(), values.end()), 100);
  EXPECT_EQ(*std::max_element(values.begin(), values.end()), 120);
  context.scale = 1e-6;  // tiny scales still leave at least one token
  EXPECT_EQ(samples_of(100, 1, context)[0], 1);
}

TEST(Distribution, ZipfFavoursTheSmallestValue) {
  const std::vector<double> values =
      samples_of({{"dist", "zipf"}, {"min", 10}, {"max", 19}, {"exponent", 1.0}}, 100000);
  const auto count_of = [&](double v) { return std::count(values.begin(), values.end(), v); };
  // P(10) / P(11) = 2 for exponent 1.
  EXPECT_NEAR(static_cast<double>(count_of(10)) / static_cast<double>(count_of(11)), 2.0, 0.1);
  EXPECT_EQ(*std::max_element(values.begin(), values.end()), 19);
}

TEST(Distribution, EmpiricalSamplesATracesLengths) {
  DistributionContext context;
  context.empirical_field = "output";
  const std::vector<double> values =
      samples_of({{"dist", "empirical"}, {"file", testing::shared_trace(testing::kAzureConv)}},
                 20000, context);
  EXPECT_NEAR(mean_of(values), 211, 6);  // GeneratedTokens mean 211
  EXPECT_LE(*std::max_element(values.begin(), values.end()), 1000);
  context.base_dir = std::string(TIDAL_SHARED_DIR) + "/traces";
  EXPECT_NEAR(median_of(samples_of(
                  {{"dist", "empirical"}, {"file", testing::kAzureConv}, {"field", "prompt"}},
                  20000, context)),
              1020, 30);
}

TEST(Distribution, SecondsAreNotRounded) {
  DistributionContext context;
  context.quantity = Quantity::seconds;
  const std::vector<double> values =
      samples_of({{"dist", "uniform"}, {"min", 0.5}, {"max", 0.7}}, 10, context);
  for (const double value : values) {
    EXPECT_GE(value, 0.5);
    EXPECT_LE(value, 0.7);
  }
  EXPECT_NE(values[0], std::round(values[0]));
}

TEST(Distribution, BadSpecsNameTheirJsonPath) {
  EXPECT_EQ(error_of({{"dist", "lognormal"}, {"median", 10}, {"sigmaa", 1}}),
            "generator.prompt.dist: lognormal needs either median and sigma, or mean and cv");
  EXPECT_EQ(error_of({{"dist", "lognormal"}, {"median", 10}, {"sigma", 1}, {"sigmaa", 1}}),
            "generator.prompt.sigmaa: unknown key (known here: cv, dist, max, mean, median, min, "
            "sigma)");
  EXPECT_EQ(error_of({{"dist", "normal"}}),
            "generator.prompt.dist: unknown distribution \"normal\" (one of fixed, uniform, "
            "exponential, lognormal, zipf, empirical)");
  EXPECT_EQ(error_of({{"dist", "fixed"}, {"value", -3}}),
            "generator.prompt.value: must be >= 0 and <= 1099511627776, got -3");
  EXPECT_EQ(error_of({{"dist", "uniform"}, {"min", 5}, {"max", 2}}),
            "generator.prompt.max: must be in [5, 1099511627776], got 2");
  EXPECT_EQ(error_of("many"), "generator.prompt: must be a JSON object, got \"many\"");
  DistributionContext prompt;
  prompt.empirical_field = "prompt";
  EXPECT_NE(error_of({{"dist", "empirical"}, {"file", "/no/such/file.csv"}}, prompt)
                .find("generator.prompt.file: /no/such/file.csv: cannot open"),
            std::string::npos);
}

}  // namespace
}  // namespace tidal::traces
