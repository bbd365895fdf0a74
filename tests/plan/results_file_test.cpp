// results.jsonl: round trip, a killed write's partial line, another plan's file.
#include <fstream>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "base/input_error.h"
#include "plan/results_file.h"
#include "tests/plan/plan_fixture.h"

namespace tidal::plan {
namespace {

CandidateResult sample(int64_t index) {
  CandidateResult r;
  r.id = fmt::format("id{}", index);
  r.index = index;
  r.config = nlohmann::ordered_json{{"tp", 2}, {"gpu", "H100-SXM"}};
  r.status = "feasible";
  r.num_gpus = 2;
  r.dollars = 0.1 + 0.2;  // not exactly representable: must round-trip bit for bit
  r.p99_ttft_s = 1.0 / 3.0;
  r.num_simulations = 1;
  return r;
}

TEST(ResultsFile, RoundTripsExactly) {
  const ScratchFolder scratch(testing::kScratch, "results_roundtrip");
  const std::filesystem::path& dir = scratch.path();
  const std::string path = (dir / "results.jsonl").string();
  {
    ResultsWriter w(path, "fp");
    w.append(sample(0));
    w.append(sample(1));
  }
  const auto results = read_results(path, "fp");
  ASSERT_EQ(results.size(), 2u);
  const CandidateResult& r = results.at("id1");
  EXPECT_EQ(r.index, 1);
  EXPECT_EQ(r.config.dump(), R"({"tp":2,"gpu":"H100-SXM"})");  // key order kept
  EXPECT_EQ(*r.dollars, 0.1 + 0.2);
  EXPECT_EQ(*r.p99_ttft_s, 1.0 / 3.0);
  EXPECT_FALSE(r.p99_e2e_s.has_value());
  EXPECT_EQ(result_to_json(r, "fp").dump(), result_to_json(sample(1), "fp").dump());
}

TEST(ResultsFile, PartialLastLineIsIgnoredAndCutBeforeAppending) {
  const ScratchFolder scratch(testing::kScratch, "results_partial");
  const std::filesystem::path& dir = scratch.path();
  const std::string path = (dir / "results.jsonl").string();
  {
    ResultsWriter w(path, "fp");
    w.append(sample(0));
  }
  std::ofstream(path, std::ios::app) << R"({"fingerprint":"fp","id":"id1","ind)";
  EXPECT_EQ(read_results(path, "fp").size(), 1u);
  {
    ResultsWriter w(path, "fp");
    w.append(sample(2));
  }
  const auto results = read_results(path, "fp");
  EXPECT_EQ(results.size(), 2u);
  EXPECT_EQ(results.count("id2"), 1u);
  EXPECT_TRUE(read_results((dir / "absent.jsonl").string(), "fp").empty());
}

TEST(ResultsFile, OtherPlansAndBadLinesAreErrors) {
  const ScratchFolder scratch(testing::kScratch, "results_bad");
  const std::filesystem::path& dir = scratch.path();
  const std::string path = (dir / "results.jsonl").string();
  {
    ResultsWriter w(path, "fp");
    w.append(sample(0));
  }
  try {
    read_results(path, "other");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with(path + ":1: written by a different plan"));
  }
  std::ofstream(path, std::ios::app) << "not json\n";
  try {
    read_results(path, "fp");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ":2: not a JSON result line");
  }
}

}  // namespace
}  // namespace tidal::plan
