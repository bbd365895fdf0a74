// Readers on the real traces (TIDAL_SHARED_DIR) and on small inline files of every format.
#include "traces/reader.h"

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "test_util.h"
#include "traces/format.h"

namespace tidal::traces {
namespace {

using testing::shared_trace;

TEST(Readers, AzureConvHas19366RequestsOver3501s) {
  ReadReport report;
  const std::vector<Request> requests = read_trace(shared_trace(testing::kAzureConv), {}, &report);
  ASSERT_EQ(requests.size(), 19366u);
  EXPECT_EQ(report.num_rows, 19366);
  EXPECT_EQ(report.num_skipped, 0);
  EXPECT_EQ(requests.front().arrival_s, 0.0);
  // 19:14:08.4025270 - 18:15:46.6805900
  EXPECT_NEAR(requests.back().arrival_s, 3501.721937, 1e-6);
  EXPECT_EQ(requests[0].prompt_tokens, 374);
  EXPECT_EQ(requests[0].output_tokens, 44);
  EXPECT_NEAR(requests[1].arrival_s, 4.314579, 1e-9);
  for (size_t i = 0; i < requests.size(); ++i) {
    ASSERT_EQ(requests[i].id, static_cast<int64_t>(i));
    if (i > 0) {
      ASSERT_GE(requests[i].arrival_s, requests[i - 1].arrival_s);
    }
  }
}

TEST(Readers, AzureCodeHas8819Requests) {
  const std::vector<Request> requests = read_trace(shared_trace(testing::kAzureCode));
  ASSERT_EQ(requests.size(), 8819u);
  EXPECT_NEAR(requests.back().arrival_s, 3435.948056, 1e-6);
}

TEST(Readers, AzureConvAndVidurSplitwiseConvAgreeRowForRow) {
  const std::vector<Request> azure = read_trace(shared_trace(testing::kAzureConv));
  const std::vector<Request> vidur = read_trace(shared_trace(testing::kVidurConv));
  ASSERT_EQ(azure.size(), vidur.size());
  for (size_t i = 0; i < azure.size(); ++i) {
    ASSERT_EQ(azure[i].prompt_tokens, vidur[i].prompt_tokens) << "row " << i;
    ASSERT_EQ(azure[i].output_tokens, vidur[i].output_tokens) << "row " << i;
    ASSERT_NEAR(azure[i].arrival_s, vidur[i].arrival_s, 1e-6) << "row " << i;
  }
}

TEST(Readers, MooncakeCarriesBlocksOf512Tokens) {
  const std::vector<Request> requests = read_trace(shared_trace(testing::kMooncake));
  ASSERT_EQ(requests.size(), 12031u);
  const Request& first = requests.front();
  EXPECT_EQ(first.arrival_s, 0.0);
  EXPECT_EQ(first.prompt_tokens, 6758);
  EXPECT_EQ(first.output_tokens, 500);
  EXPECT_EQ(first.prefix_block_tokens, 512);
  EXPECT_EQ(first.prefix_blocks,
            (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}));
  EXPECT_EQ(requests.back().arrival_s, 3536.999);
}

TEST(Readers, VidurLengthOnlyFileReadsWithArrivalZero) {
  const std::vector<Request> requests = read_trace(shared_trace(testing::kVidurArxiv));
  ASSERT_EQ(requests.size(), 28257u);
  EXPECT_EQ(requests[0].prompt_tokens, 3772);
  EXPECT_EQ(requests[0].output_tokens, 54);
  for (const Request& request : requests) ASSERT_EQ(request.arrival_s, 0.0);
}

// The reader says when a file has no arrival times (the CLI prints it once).
TEST(Readers, ReportsWhenAFileHasNoArrivalTimes) {
  ReadReport report;
  read_trace_text("num_prefill_tokens,num_decode_tokens\n10,2\n", "lengths.csv", {}, &report);
  EXPECT_TRUE(report.no_arrival_times);
  read_trace_text("arrived_at,num_prefill_tokens,num_decode_tokens\n0.5,10,2\n", "v.csv", {},
                  &report);
  EXPECT_FALSE(report.no_arrival_times);
  EXPECT_FALSE(trace_has_arrival_times(shared_trace(testing::kVidurArxiv)));
  EXPECT_TRUE(trace_has_arrival_times(shared_trace(testing::kVidurConv)));
  EXPECT_TRUE(trace_has_arrival_times(shared_trace(testing::kAzureConv)));
}

TEST(Readers, DetectsEveryFormatFromItsFirstLine) {
  EXPECT_EQ(detect_format(shared_trace(testing::kAzureConv)), TraceFormat::azure);
  EXPECT_EQ(detect_format(shared_trace(testing::kMooncake)), TraceFormat::mooncake);
  EXPECT_EQ(detect_format(shared_trace(testing::kVidurConv)), TraceFormat::vidur);
  EXPECT_EQ(detect_format(shared_trace(testing::kVidurArxiv)), TraceFormat::vidur);
  EXPECT_EQ(detect_format_from_first_line(
                "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type", "b"),
            TraceFormat::burstgpt);
  EXPECT_EQ(detect_format_from_first_line(R"({"id":0,"arrival_s":0,"prompt_tokens":1})", "t"),
            TraceFormat::tidal_jsonl);
  EXPECT_EQ(detect_format_from_first_line("id,arrival_s,prompt_tokens,output_tokens", "t"),
            TraceFormat::tidal_csv);
}

TEST(Readers, FormatNamesRoundTrip) {
  for (const TraceFormat format : all_formats()) {
    EXPECT_EQ(parse_format_name(format_name(format)), format);
  }
  EXPECT_EQ(parse_format_name("jsonl"), TraceFormat::tidal_jsonl);
  EXPECT_EQ(parse_format_name("csv"), TraceFormat::tidal_csv);
}

TEST(Readers, BurstGptMapsModelToTenantAndLogTypeToClass) {
  const std::string text =
      "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
      "5,ChatGPT,472,18,490,Conversation log\n"
      "45,GPT-4,1087,0,1087,API log\n"
      "118,ChatGPT,417,217,634,Conversation log\n";
  const std::vector<Request> requests = read_trace_text(text, "burst.csv");
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].arrival_s, 0.0);
  EXPECT_EQ(requests[1].arrival_s, 40.0);
  EXPECT_EQ(requests[2].arrival_s, 113.0);
  EXPECT_EQ(requests[0].tenant, "ChatGPT");
  EXPECT_EQ(requests[1].tenant, "GPT-4");
  EXPECT_EQ(requests[0].slo_class, "Conversation log");
  EXPECT_EQ(requests[1].slo_class, "API log");
  EXPECT_FALSE(requests[0].failed);
  EXPECT_TRUE(requests[1].failed);  // zero response tokens: kept, marked failed
  EXPECT_EQ(requests[1].output_tokens, 0);
}

TEST(Readers, CrLfLineEndsByteOrderMarkAndBlankLinesAreAccepted) {
  const std::string text =
      "\xEF\xBB\xBFTIMESTAMP,ContextTokens,GeneratedTokens\r\n"
      "2023-11-16 18:15:46.6805900,374,44\r\n"
      "\r\n"
      "2023-11-16 18:15:50.9951690,396,109";  // no final line break
  const std::vector<Request> requests = read_trace_text(text, "azure.csv");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NEAR(requests[1].arrival_s, 4.314579, 1e-12);
  EXPECT_EQ(requests[1].id, 1);
}

TEST(Readers, ColumnsAreFoundByNameInAnyOrder) {
  const std::string text =
      "GeneratedTokens,TIMESTAMP,ContextTokens\n"
      "44,2023-11-16 18:15:46.6805900,374\n";
  const std::vector<Request> requests = read_trace_text(text, "azure.csv");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].prompt_tokens, 374);
  EXPECT_EQ(requests[0].output_tokens, 44);
}

TEST(Readers, FormatOptionOverridesDetection) {
  const std::string text = "arrived_at,num_prefill_tokens,num_decode_tokens\n0.5,10,20\n";
  ReadOptions options;
  options.format = TraceFormat::azure;
  EXPECT_THROW(read_trace_text(text, "v.csv", options), InputError);
  options.format = TraceFormat::vidur;
  EXPECT_EQ(read_trace_text(text, "v.csv", options).size(), 1u);
}

TEST(Readers, StreamingReaderReturnsRowsOneByOne) {
  TraceReader reader(shared_trace(testing::kMooncake), {});
  EXPECT_EQ(reader.format(), TraceFormat::mooncake);
  Request request;
  int64_t num_rows = 0;
  int64_t num_blocks = 0;
  while (reader.next(request)) {
    ASSERT_EQ(request.id, num_rows);
    ++num_rows;
    num_blocks += static_cast<int64_t>(request.prefix_blocks.size());
  }
  EXPECT_EQ(num_rows, 12031);
  EXPECT_EQ(num_blocks, 288500);  // the README's count of block references
  EXPECT_EQ(reader.report().num_rows, 12031);
}

TEST(Readers, TidalJsonlKeepsItsOwnIdsAndDefaultsTheRest) {
  const std::string text =
      R"({"id":7,"arrival_s":1.5,"prompt_tokens":10,"output_tokens":2})"
      "\n"
      R"({"arrival_s":2,"prompt_tokens":32,"output_tokens":1,"session_id":"a\"b","turn":3,)"
      R"("prefix_block_tokens":16,"prefix_blocks":[1,18446744073709551615],"deps":[7],)"
      R"("failed":true,"tenant":"t\u00e9","slo_class":"batch","region":"eu"})"
      "\n";
  const std::vector<Request> requests = read_trace_text(text, "t.jsonl");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].id, 7);
  EXPECT_EQ(requests[0].arrival_s, 1.5);  // tidal formats are not shifted
  EXPECT_EQ(requests[0].turn, -1);
  EXPECT_EQ(requests[1].id, 1);  // no id: the row index
  EXPECT_EQ(requests[1].session_id, "a\"b");
  EXPECT_EQ(requests[1].turn, 3);
  EXPECT_EQ(requests[1].prefix_blocks, (std::vector<uint64_t>{1, 18446744073709551615ULL}));
  EXPECT_EQ(requests[1].deps, (std::vector<int64_t>{7}));
  EXPECT_TRUE(requests[1].failed);
  EXPECT_EQ(requests[1].tenant, "t\xC3\xA9");
  EXPECT_EQ(requests[1].region, "eu");
}

TEST(Readers, SkipBadCountsAndReportsEveryBadRow) {
  const std::string text =
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 18:15:46.6805900,374,44\n"
      "2023-11-16 18:15:47.0000000,abc,44\n"
      "2023-11-16 18:15:48.0000000,10,-3\n"
      "2023-11-16 18:15:49.0000000,10,3\n";
  ReadOptions options;
  options.skip_bad = true;
  ReadReport report;
  const std::vector<Request> requests = read_trace_text(text, "a.csv", options, &report);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].id, 1);
  EXPECT_EQ(requests[1].arrival_s, 2.31941);  // 18:15:49 - 18:15:46.6805900
  EXPECT_EQ(report.num_rows, 2);
  EXPECT_EQ(report.num_skipped, 2);
  ASSERT_EQ(report.skipped.size(), 2u);
  EXPECT_EQ(report.skipped[0], "a.csv:3: ContextTokens: not an integer: 'abc'");
  EXPECT_EQ(report.skipped[1], "a.csv:4: GeneratedTokens: must be >= 0, got -3");
}

TEST(Readers, SkippedRowsDoNotMoveTheClock) {
  // The backwards row is skipped; the next row is compared with the last good one.
  const std::string text =
      "arrived_at,num_prefill_tokens,num_decode_tokens\n"
      "10,1,1\n"
      "5,1,1\n"
      "11,1,1\n";
  ReadOptions options;
  options.skip_bad = true;
  ReadReport report;
  const std::vector<Request> requests = read_trace_text(text, "v.csv", options, &report);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1].arrival_s, 1.0);
  ASSERT_EQ(report.skipped.size(), 1u);
  EXPECT_EQ(report.skipped[0],
            "v.csv:3: arrived_at: goes back in time by 5 s (rows must be sorted by time)");
}

TEST(Readers, HeaderOnlyFileHasNoRequests) {
  EXPECT_TRUE(read_trace_text("TIMESTAMP,ContextTokens,GeneratedTokens\n", "a.csv").empty());
}

}  // namespace
}  // namespace tidal::traces
