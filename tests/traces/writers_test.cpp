// Writers: every reader's output written as tidal JSONL (and CSV) reads back identical.
#include "traces/writer.h"

#include <sstream>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "test_util.h"
#include "traces/convert.h"
#include "traces/generators.h"
#include "traces/reader.h"

namespace tidal::traces {
namespace {

std::string to_jsonl(const std::vector<Request>& requests) {
  std::ostringstream out;
  write_jsonl(requests, out);
  return out.str();
}

std::string to_csv(const std::vector<Request>& requests) {
  std::ostringstream out;
  write_csv(requests, out);
  return out.str();
}

void expect_round_trip(const std::vector<Request>& requests, const std::string& what) {
  const std::vector<Request> from_jsonl = read_trace_text(to_jsonl(requests), what + ".jsonl");
  ASSERT_EQ(from_jsonl.size(), requests.size()) << what;
  for (size_t i = 0; i < requests.size(); ++i)
    ASSERT_EQ(from_jsonl[i], requests[i]) << what << " " << i;
  const std::vector<Request> from_csv = read_trace_text(to_csv(requests), what + ".csv");
  ASSERT_EQ(from_csv.size(), requests.size()) << what;
  for (size_t i = 0; i < requests.size(); ++i)
    ASSERT_EQ(from_csv[i], requests[i]) << what << " " << i;
}

TEST(Writers, EveryRealTraceRoundTripsThroughTidalJsonlAndCsv) {
  for (const std::string& trace : {testing::kAzureConv, testing::kAzureCode, testing::kMooncake,
                                   testing::kVidurConv, testing::kVidurArxiv}) {
    expect_round_trip(read_trace(testing::shared_trace(trace)), trace);
  }
}

TEST(Writers, BurstGptRoundTrips) {
  const std::vector<Request> requests = read_trace_text(
      "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
      "5.25,ChatGPT,472,18,490,Conversation log\n"
      "45,GPT-4,1087,0,1087,API log\n",
      "burst.csv");
  expect_round_trip(requests, "burstgpt");
}

TEST(Writers, GeneratedSessionsAndAgentDagsRoundTrip) {
  const nlohmann::json spec = {
      {"kind", "mix"},
      {"duration_s", 600},
      {"workloads",
       {{{"kind", "sessions"}, {"session_rate", 0.2}, {"tenant", "chat"}, {"region", "eu-west"}},
        {{"kind", "agent"}, {"job_rate", 0.05}, {"slo_class", "batch"}}}}};
  const std::vector<Request> requests = generate(spec, 11);
  ASSERT_GT(requests.size(), 100u);
  expect_round_trip(requests, "generated");
}

TEST(Writers, AwkwardStringsAndNumbersRoundTrip) {
  Request request;
  request.id = 3;
  request.arrival_s = 0.1 + 0.2;  // not the shortest decimal: needs all 17 digits
  request.prompt_tokens = (int64_t{1} << 40);
  request.output_tokens = 0;
  request.session_id = "quote \" comma , backslash \\ tab \t";
  request.turn = 0;
  request.tenant = " leading blank";
  request.slo_class = "\xE2\x9C\x93 utf-8";
  request.region = "ctrl \x01";
  request.prefix_block_tokens = 1 << 30;
  request.prefix_blocks = {18446744073709551615ULL, 0};
  request.deps = {0, 9007199254740993};
  request.failed = true;
  request.prompt_tokens = (int64_t{1} << 30) + 1;
  expect_round_trip({request}, "awkward");
}

TEST(Writers, ModelAndComplexityRoundTripAndComplexityIsChecked) {
  Request request;
  request.arrival_s = 1.0;
  request.prompt_tokens = 10;
  request.output_tokens = 5;
  request.model = "llama-3-70b";
  request.complexity = 0.1 + 0.2;
  expect_round_trip({request}, "model");
  EXPECT_EQ(to_jsonl({request}),
            "{\"id\":0,\"arrival_s\":1,\"prompt_tokens\":10,\"output_tokens\":5,"
            "\"model\":\"llama-3-70b\",\"complexity\":0.30000000000000004}\n");
  try {
    (void)read_trace_text(
        "{\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1,\"complexity\":1.5}\n",
        "hard.jsonl");
    FAIL() << "complexity 1.5 was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("complexity"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("must be in [0, 1], got 1.5"), std::string::npos)
        << e.what();
  }
}

TEST(Writers, PrivateRoundTripsInBothFormats) {
  Request open_request;
  open_request.arrival_s = 0.5;
  open_request.prompt_tokens = 3;
  open_request.output_tokens = 2;
  Request private_request = open_request;
  private_request.id = 1;
  private_request.is_private = true;
  expect_round_trip({open_request, private_request}, "private");
  EXPECT_EQ(to_jsonl({private_request}),
            "{\"id\":1,\"arrival_s\":0.5,\"prompt_tokens\":3,\"output_tokens\":2,"
            "\"private\":true}\n");
  const std::vector<Request> from_csv = read_trace_text(
      "arrival_s,prompt_tokens,output_tokens,private\n0,1,1,\n0,1,1,true\n", "p.csv");
  ASSERT_EQ(from_csv.size(), 2U);
  EXPECT_FALSE(from_csv[0].is_private);
  EXPECT_TRUE(from_csv[1].is_private);
  try {
    (void)read_trace_text(
        "{\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1,"
        "\"private\":\"yes\"}\n",
        "p.jsonl");
    FAIL() << "a string private was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("private"), std::string::npos) << e.what();
  }
}

TEST(Writers, WireBytesRoundTripInBothFormats) {
  Request plain;
  plain.arrival_s = 0.5;
  plain.prompt_tokens = 3;
  plain.output_tokens = 2;
  Request sized = plain;
  sized.id = 1;
  sized.request_bytes = 1200;
  sized.response_bytes = 0;
  expect_round_trip({plain, sized}, "wire_bytes");
  EXPECT_EQ(to_jsonl({sized}),
            "{\"id\":1,\"arrival_s\":0.5,\"prompt_tokens\":3,\"output_tokens\":2,"
            "\"request_bytes\":1200,\"response_bytes\":0}\n");
  const std::vector<Request> from_csv = read_trace_text(
      "arrival_s,prompt_tokens,output_tokens,response_bytes\n0,1,1,\n0,1,1,77\n", "b.csv");
  ASSERT_EQ(from_csv.size(), 2U);
  EXPECT_EQ(from_csv[0].response_bytes, -1);  // none
  EXPECT_EQ(from_csv[1].response_bytes, 77);
  for (const std::string& bad : {std::string("-1"), std::string("1125899906842625")}) {
    try {
      (void)read_trace_text(
          "{\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1,\"request_bytes\":" + bad +
              "}\n",
          "b.jsonl");
      FAIL() << "request_bytes " << bad << " was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("b.jsonl"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("request_bytes: must be in [0, 1125899906842624]"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Writers, JsonlOmitsDefaultsAndKeepsKeyOrder) {
  Request request;
  request.id = 1;
  request.arrival_s = 2.5;
  request.prompt_tokens = 3;
  request.output_tokens = 4;
  EXPECT_EQ(to_jsonl({request}),
            "{\"id\":1,\"arrival_s\":2.5,\"prompt_tokens\":3,\"output_tokens\":4}\n");
  request.session_id = "s";
  request.turn = 2;
  request.deps = {0};
  EXPECT_EQ(to_jsonl({request}),
            "{\"id\":1,\"arrival_s\":2.5,\"prompt_tokens\":3,\"output_tokens\":4,"
            "\"session_id\":\"s\",\"turn\":2,\"deps\":[0]}\n");
  EXPECT_EQ(to_csv({request}), std::string(csv_header()) + "\n1,2.5,3,4,s,2,,,,0,,0,0,0,,,,0,,,\n");
}

TEST(Writers, CsvRefusesLineBreaksInStrings) {
  Request request;
  request.tenant = "two\nlines";
  EXPECT_THROW(to_csv({request}), InputError);
  EXPECT_NO_THROW(to_jsonl({request}));
}

TEST(Writers, OutputFormatComesFromTheExtension) {
  EXPECT_EQ(output_format_for_path("a/b.jsonl"), TraceFormat::tidal_jsonl);
  EXPECT_EQ(output_format_for_path("b.csv"), TraceFormat::tidal_csv);
  EXPECT_EQ(output_format_for_path("-"), TraceFormat::tidal_jsonl);
  try {
    output_format_for_path("trace.parquet");
    FAIL();
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(),
                 "trace.parquet: cannot tell the output format from the extension '.parquet' "
                 "(use .jsonl or .csv)");
  }
}

TEST(Writers, ConvertStreamsFileToFile) {
  testing::ScratchDir scratch;
  const std::string output = scratch.file("mooncake.csv");
  const ReadReport report =
      convert_trace(testing::shared_trace(testing::kMooncake), output, ReadOptions{});
  EXPECT_EQ(report.num_rows, 12031);
  EXPECT_EQ(read_trace(output), read_trace(testing::shared_trace(testing::kMooncake)));

  const std::string input = scratch.write(
      "bad.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0,1,1\n1,x,1\n2,3,4\n");
  ReadOptions options;
  options.skip_bad = true;
  const ReadReport skipped = convert_trace(input, scratch.file("out.jsonl"), options);
  EXPECT_EQ(skipped.num_rows, 2);
  ASSERT_EQ(skipped.skipped.size(), 1u);
  EXPECT_EQ(skipped.skipped[0], input + ":3: num_prefill_tokens: not an integer: 'x'");
  EXPECT_EQ(read_trace(scratch.file("out.jsonl")).size(), 2u);
}

}  // namespace
}  // namespace tidal::traces
