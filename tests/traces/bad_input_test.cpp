// Bad input ends in one InputError whose text names file, line and field (exact texts).
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "test_util.h"
#include "traces/format.h"
#include "traces/reader.h"

namespace tidal::traces {
namespace {

// The message of the InputError reading `text` throws ("" if it reads fine).
std::string error_of(const std::string& text, const std::string& name,
                     std::optional<TraceFormat> format = std::nullopt) {
  ReadOptions options;
  options.format = format;
  try {
    read_trace_text(text, name, options);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

const std::string kAzureHeader = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
const std::string kVidurHeader = "arrived_at,num_prefill_tokens,num_decode_tokens\n";

TEST(BadInput, NonNumberNamesFileLineAndField) {
  EXPECT_EQ(error_of(kAzureHeader + "2023-11-16 18:15:46.6805900,374,44\n"
                                    "2023-11-16 18:15:47.0000000,12x,44\n",
                     "conv.csv"),
            "conv.csv:3: ContextTokens: not an integer: '12x'");
  EXPECT_EQ(error_of(kVidurHeader + "zero,1,1\n", "v.csv"),
            "v.csv:2: arrived_at: not a number: 'zero'");
}

TEST(BadInput, MissingField) {
  EXPECT_EQ(error_of(kAzureHeader + "2023-11-16 18:15:46.6805900,374\n", "conv.csv"),
            "conv.csv:2: GeneratedTokens: missing field (the row has 2 of 3 columns)");
  EXPECT_EQ(error_of(kAzureHeader + "2023-11-16 18:15:46.6805900,,5\n", "conv.csv"),
            "conv.csv:2: ContextTokens: missing value");
  EXPECT_EQ(error_of(R"({"timestamp": 0, "output_length": 5, "hash_ids": []})"
                     "\n",
                     "m.jsonl", TraceFormat::mooncake),
            "m.jsonl:1: input_length: missing field");
}

TEST(BadInput, NegativeTokens) {
  EXPECT_EQ(error_of(kAzureHeader + "2023-11-16 18:15:46.6805900,374,-5\n", "conv.csv"),
            "conv.csv:2: GeneratedTokens: must be >= 0, got -5");
}

TEST(BadInput, TimeGoingBackwards) {
  EXPECT_EQ(error_of(kAzureHeader + "2023-11-16 18:15:46.0000000,1,1\n"
                                    "2023-11-16 18:15:45.0000000,1,1\n",
                     "conv.csv"),
            "conv.csv:3: TIMESTAMP: goes back in time by 1 s (rows must be sorted by time)");
  EXPECT_EQ(
      error_of(R"({"timestamp": 3000, "input_length": 1, "output_length": 1, "hash_ids": [1]})"
               "\n"
               R"({"timestamp": 1000, "input_length": 1, "output_length": 1, "hash_ids": [1]})"
               "\n",
               "m.jsonl"),
      "m.jsonl:2: timestamp: goes back in time by 2 s (rows must be sorted by time)");
}

TEST(BadInput, BurstGptRowsBeforeTheFirstAreRejected) {
  EXPECT_EQ(error_of("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                     "10,ChatGPT,1,1,2,API log\n"
                     "20,ChatGPT,1,1,2,API log\n"
                     "4,ChatGPT,1,1,2,API log\n",
                     "b.csv"),
            "b.csv:4: Timestamp: 6 s before the first row, which defines time 0");
}

TEST(BadInput, TruncatedJson) {
  EXPECT_EQ(error_of(R"({"timestamp": 0, "input_length": 67)", "m.jsonl", TraceFormat::mooncake),
            "m.jsonl:1: row: truncated JSON (the line ends inside the object)");
  EXPECT_EQ(
      error_of(R"({"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2)",
               "m.jsonl", TraceFormat::mooncake),
      "m.jsonl:1: hash_ids: truncated JSON (the line ends inside the object)");
  EXPECT_EQ(error_of(R"({"arrival_s": 0, "prompt_tokens": 1, "output_tokens": 1, "tenant": "ab)",
                     "t.jsonl", TraceFormat::tidal_jsonl),
            "t.jsonl:1: tenant: truncated JSON (the line ends inside the object)");
}

TEST(BadInput, MooncakeBlockCountMustMatchInputLength) {
  EXPECT_EQ(
      error_of(R"({"timestamp": 0, "input_length": 1025, "output_length": 5, "hash_ids": [1, 2]})",
               "m.jsonl"),
      "m.jsonl:1: hash_ids: 2 blocks, but input_length 1025 needs ceil(1025/512) = 3");
}

TEST(BadInput, TidalJsonlRejectsUnknownAndRepeatedKeys) {
  EXPECT_EQ(error_of(R"({"arrival_s": 0, "prompt_tokens": 1, "output_tokens": 1, "colour": 1})",
                     "t.jsonl"),
            "t.jsonl:1: colour: unknown field");
  EXPECT_EQ(
      error_of(R"({"arrival_s": 0, "prompt_tokens": 1, "prompt_tokens": 2, "output_tokens": 1})",
               "t.jsonl"),
      "t.jsonl:1: prompt_tokens: appears twice");
  EXPECT_EQ(error_of(R"({"arrival_s": -1, "prompt_tokens": 1, "output_tokens": 1})", "t.jsonl"),
            "t.jsonl:1: arrival_s: must be in [0, 1000000000], got -1");
}

TEST(BadInput, HeaderProblemsAreErrorsEvenWhenSkippingRows) {
  ReadOptions options;
  options.format = TraceFormat::azure;
  options.skip_bad = true;
  try {
    read_trace_text("TIMESTAMP,Context,GeneratedTokens\n", "a.csv", options);
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(),
                 "a.csv:1: ContextTokens: missing column in the header (in the azure header)");
  }
}

TEST(BadInput, EmptyFileDirectoryMissingFileUnknownFormat) {
  testing::ScratchDir scratch;
  const std::string empty = scratch.write("empty.csv", "");
  const std::string blank = scratch.write("blank.csv", "\n  \n");
  auto error_of_path = [](const std::string& path) -> std::string {
    try {
      read_trace(path);
    } catch (const InputError& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_EQ(error_of_path(empty), empty + ": empty file (no header and no rows)");
  EXPECT_EQ(error_of_path(blank), blank + ": empty file (no header and no rows)");
  EXPECT_EQ(error_of_path(scratch.file("")),
            scratch.file("") + ": is a directory, not a trace file");
  EXPECT_EQ(error_of_path(scratch.file("missing.csv")),
            scratch.file("missing.csv") + ": cannot open: No such file or directory");
  EXPECT_EQ(error_of("when,what\n1,2\n", "odd.csv"),
            "odd.csv:1: format: cannot tell the trace format from the first line 'when,what' "
            "(expected a known CSV header or a JSON object); pass --format (azure, mooncake, "
            "burstgpt, vidur, tidal_jsonl, tidal_csv)");
  EXPECT_THROW(parse_format_name("parquet"), InputError);
  try {
    parse_format_name("parquet");
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(),
                 "unknown trace format 'parquet' (known: azure, mooncake, burstgpt, vidur, "
                 "tidal_jsonl, tidal_csv)");
  }
}

TEST(BadInput, OverlongValuesAreQuotedShortAndEscaped) {
  const std::string long_text(100, 'x');
  EXPECT_EQ(
      error_of(kAzureHeader + "2023-11-16 18:15:46.6805900,\x01" + long_text + ",1\n", "a.csv"),
      "a.csv:2: ContextTokens: not an integer: '\\x01" + std::string(39, 'x') + "...'");
}

}  // namespace
}  // namespace tidal::traces
