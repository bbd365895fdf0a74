// Seeded random mutations of valid inputs of every format: reading them never crashes and
// ends either in requests or in an InputError (10^5 inputs per format).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "base/input_error.h"
#include "tests/traces/fuzz_mutations.h"
#include "traces/format.h"
#include "traces/limits.h"
#include "traces/reader.h"

namespace tidal::traces {
namespace {

using testing::mutate;

constexpr int64_t kInputsPerFormat = 100'000;

std::string seed_text(TraceFormat format) {
  switch (format) {
    case TraceFormat::azure:
      return "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
             "2023-11-16 18:15:46.6805900,374,44\r\n"
             "2023-11-16 18:15:50.9951690,396,109\r\n"
             "2023-11-16 18:15:51.2224670,879,55\r\n";
    case TraceFormat::mooncake:
      return "{\"timestamp\": 0, \"input_length\": 6758, \"output_length\": 500, \"hash_ids\": "
             "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]}\n"
             "{\"timestamp\": 0, \"input_length\": 1000, \"output_length\": 490, \"hash_ids\": [0, "
             "14]}\n"
             "{\"timestamp\": 3000, \"input_length\": 2290, \"output_length\": 316, \"hash_ids\": "
             "[0, 42, 43, 44, 45]}\n";
    case TraceFormat::burstgpt:
      return "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
             "5,ChatGPT,472,18,490,Conversation log\n"
             "45,GPT-4,1087,0,1087,API log\n"
             "118,\"Chat, GPT\",417,217,634,Conversation log\n";
    case TraceFormat::vidur:
      return "arrived_at,num_prefill_tokens,num_decode_tokens\n"
             "0.0,374,44\n4.314579,396,109\n4.541877,879,55\n";
    case TraceFormat::tidal_jsonl:
      return "{\"id\":0,\"arrival_s\":0.5,\"prompt_tokens\":20,\"output_tokens\":4,"
             "\"session_id\":\"s\\\"0\",\"turn\":0,\"tenant\":\"t\\u00e9\",\"slo_class\":\"batch\","
             "\"region\":\"eu\",\"prefix_block_tokens\":16,\"prefix_blocks\":[1,2],\"failed\":true}"
             "\n"
             "{\"id\":1,\"arrival_s\":1e-3,\"prompt_tokens\":3,\"output_tokens\":4,\"deps\":[0]}\n";
    case TraceFormat::tidal_csv:
      return "id,arrival_s,prompt_tokens,output_tokens,session_id,turn,tenant,slo_class,region,"
             "prefix_block_tokens,prefix_blocks,deps,failed\n"
             "0,0.5,20,4,\"s,\"\"0\",0,t,batch,eu,16,1 2,,1\n"
             "1,0.001,3,4,,-1,,,,0,,0,0\n";
  }
  return "";
}

void fuzz_format(TraceFormat format) {
  std::mt19937_64 rng(0x7fu + static_cast<uint64_t>(format));
  const std::string seed = seed_text(format);
  ASSERT_FALSE(read_trace_text(seed, "seed").empty()) << format_name(format);
  int64_t num_read = 0;
  int64_t num_rejected = 0;
  for (int64_t i = 0; i < kInputsPerFormat; ++i) {
    const std::string text = mutate(seed, rng);
    ReadOptions options;
    if (rng() % 2 == 0) options.format = format;
    options.skip_bad = rng() % 3 == 0;
    try {
      ReadReport report;
      const std::vector<Request> requests = read_trace_text(text, "fuzz", options, &report);
      ASSERT_EQ(report.num_rows, static_cast<int64_t>(requests.size()));
      ASSERT_EQ(report.num_skipped, static_cast<int64_t>(report.skipped.size()));
      for (const Request& request : requests) {
        ASSERT_TRUE(std::isfinite(request.arrival_s));
        ASSERT_GE(request.arrival_s, 0.0);
        ASSERT_LE(request.arrival_s, base::kMaxArrivalS);
        ASSERT_GE(request.prompt_tokens, 0);
        ASSERT_LE(request.prompt_tokens, base::kMaxTokens);
        ASSERT_GE(request.output_tokens, 0);
        ASSERT_LE(request.output_tokens, base::kMaxTokens);
      }
      ++num_read;
    } catch (const InputError& error) {
      ASSERT_GT(std::string_view(error.what()).size(), 0u);
      ++num_rejected;
    }
  }
  // Both outcomes occur, so the mutations reach past the header.
  EXPECT_GT(num_read, kInputsPerFormat / 20) << format_name(format);
  EXPECT_GT(num_rejected, kInputsPerFormat / 20) << format_name(format);
}

TEST(Fuzz, Azure) {
  fuzz_format(TraceFormat::azure);
}
TEST(Fuzz, Mooncake) {
  fuzz_format(TraceFormat::mooncake);
}
TEST(Fuzz, BurstGpt) {
  fuzz_format(TraceFormat::burstgpt);
}
TEST(Fuzz, Vidur) {
  fuzz_format(TraceFormat::vidur);
}
TEST(Fuzz, TidalJsonl) {
  fuzz_format(TraceFormat::tidal_jsonl);
}
TEST(Fuzz, TidalCsv) {
  fuzz_format(TraceFormat::tidal_csv);
}

}  // namespace
}  // namespace tidal::traces
