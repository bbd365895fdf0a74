// The batching limits of an aggregated row read on the other architectures of its engine x GPU:
// a row's own errors never choose its reading.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "validate/limits_reading.h"

namespace tidal::validate {
namespace {

PreparedRow row(const std::string& engine, const std::string& architecture,
                const std::string& mode = "agg") {
  PreparedRow r;
  r.engine = engine;
  r.gpu = "H200-SXM";
  r.architecture = architecture;
  r.run.mode = mode;
  r.run.ttft_ms = 100.0;
  r.run.tpot_ms = 10.0;
  return r;
}

RowPrediction predicted(double ttft_ms, double tpot_ms) {
  return RowPrediction{ttft_ms, tpot_ms, 1};
}

TEST(LimitsReading, ARowTakesTheReadingThatFitsTheOtherArchitectures) {
  // Architecture "a" is predicted better by the generator's limits, "b" by the presets'.
  const std::vector<PreparedRow> rows = {row("vllm", "a"), row("vllm", "a"), row("vllm", "b")};
  const std::vector<const PreparedRow*> pointers = {&rows[0], &rows[1], &rows[2]};
  const std::vector<RowPrediction> presets = {predicted(200, 10), predicted(200, 10),
                                              predicted(100, 10)};
  const std::vector<std::optional<RowPrediction>> generator = {
      predicted(100, 10), predicted(110, 10), predicted(300, 10)};
  const LimitsChoice choice = choose_limits_held_out(pointers, presets, generator);
  // a's rows follow b's evidence (the presets), b's row follows a's (the generator).
  EXPECT_EQ(choice.readings[0], LimitsReading::presets);
  EXPECT_EQ(choice.readings[1], LimitsReading::presets);
  EXPECT_EQ(choice.readings[2], LimitsReading::generator);
  EXPECT_DOUBLE_EQ(choice.predicted[0].ttft_ms, 200.0);
  EXPECT_DOUBLE_EQ(choice.predicted[2].ttft_ms, 300.0);
}

TEST(LimitsReading, NoOtherArchitectureOrEngineKeepsThePresets) {
  // One architecture on vLLM, another on SGLang: neither has another architecture to read from.
  const std::vector<PreparedRow> rows = {row("vllm", "a"), row("sglang", "b")};
  const std::vector<const PreparedRow*> pointers = {&rows[0], &rows[1]};
  const std::vector<RowPrediction> presets = {predicted(300, 10), predicted(300, 10)};
  const std::vector<std::optional<RowPrediction>> generator = {predicted(100, 10),
                                                               predicted(100, 10)};
  const LimitsChoice choice = choose_limits_held_out(pointers, presets, generator);
  EXPECT_EQ(choice.readings[0], LimitsReading::presets);
  EXPECT_EQ(choice.readings[1], LimitsReading::presets);
}

TEST(LimitsReading, RowsWithoutTheGeneratorsReadingNeitherVoteNorChange) {
  // The disaggregated row and the row without a generator reading are kept on the presets, and
  // the disaggregated row's (better) generator figures do not count for "a".
  const std::vector<PreparedRow> rows = {row("trtllm", "a"), row("trtllm", "b", "disagg"),
                                         row("trtllm", "b")};
  const std::vector<const PreparedRow*> pointers = {&rows[0], &rows[1], &rows[2]};
  const std::vector<RowPrediction> presets = {predicted(150, 10), predicted(300, 10),
                                              predicted(100, 10)};
  const std::vector<std::optional<RowPrediction>> generator = {predicted(100, 10),
                                                               predicted(100, 10), std::nullopt};
  const LimitsChoice choice = choose_limits_held_out(pointers, presets, generator);
  EXPECT_EQ(choice.readings[0], LimitsReading::presets);  // b has no row with both readings
  EXPECT_EQ(choice.readings[1], LimitsReading::presets);
  EXPECT_EQ(choice.readings[2], LimitsReading::presets);
  EXPECT_DOUBLE_EQ(choice.predicted[1].ttft_ms, 300.0);
}

TEST(LimitsReading, ATieKeepsThePresets) {
  const std::vector<PreparedRow> rows = {row("vllm", "a"), row("vllm", "b")};
  const std::vector<const PreparedRow*> pointers = {&rows[0], &rows[1]};
  const std::vector<RowPrediction> presets = {predicted(120, 10), predicted(120, 10)};
  const std::vector<std::optional<RowPrediction>> generator = {predicted(80, 10),
                                                               predicted(80, 10)};
  const LimitsChoice choice = choose_limits_held_out(pointers, presets, generator);
  EXPECT_EQ(choice.readings[0], LimitsReading::presets);
  EXPECT_EQ(choice.readings[1], LimitsReading::presets);
}

}  // namespace
}  // namespace tidal::validate
