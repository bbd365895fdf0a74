// bench/option_pairs.h: values are whole numbers (or decimals) at least their minimum; anything
// else prints the usage and exits 2 (death tests: the helpers end the process).
#include "bench/option_pairs.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace tidal::bench {
namespace {

constexpr std::string_view kUsage = "usage: test [--n N]";

TEST(BenchOptions, ANumberAtLeastItsMinimumIsRead) {
  EXPECT_EQ(option_number<int64_t>("test", "--n", "12", 1, kUsage), 12);
  EXPECT_EQ(option_number<int>("test", "--n", "1", 1, kUsage), 1);
  EXPECT_DOUBLE_EQ(option_number<double>("test", "--s", "0.25", 0.0, kUsage), 0.25);
}

TEST(BenchOptions, AnythingElseExitsWithTheUsage) {
  for (const std::string value : {"abc", "", "8x", "1e3", " 3", "-"}) {
    EXPECT_EXIT(option_number<int64_t>("test", "--n", value, 1, kUsage), testing::ExitedWithCode(2),
                "option --n: not a number")
        << value;
  }
  EXPECT_EXIT(option_number<int>("test", "--n", "0", 1, kUsage), testing::ExitedWithCode(2),
              "option --n: must be at least 1: 0");
  EXPECT_EXIT(option_number<double>("test", "--s", "-0.5", 0.0, kUsage), testing::ExitedWithCode(2),
              "must be at least 0: -0.5");
  EXPECT_EXIT(option_number<int>("test", "--n", "99999999999", 1, kUsage),
              testing::ExitedWithCode(2), "not a number");  // out of int's range
}

TEST(BenchOptions, UnknownOptionsAndMissingValuesExitWithTheUsage) {
  char program[] = "test";
  char known[] = "--n";
  char unknown[] = "--m";
  char value[] = "3";
  char* with_value[] = {program, known, value};
  const OptionPairs pairs = option_pairs(3, with_value, {"--n"}, kUsage);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0], (std::pair<std::string, std::string>{"--n", "3"}));
  char* missing[] = {program, known};
  EXPECT_EXIT(option_pairs(2, missing, {"--n"}, kUsage), testing::ExitedWithCode(2),
              "option --n needs a value");
  char* wrong[] = {program, unknown, value};
  EXPECT_EXIT(option_pairs(3, wrong, {"--n"}, kUsage), testing::ExitedWithCode(2),
              "unknown option --m");
}

}  // namespace
}  // namespace tidal::bench
