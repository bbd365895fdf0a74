// Hostile traces (issue 19): duplicate columns, over-long lines, control bytes in names and
// dependency graphs that cannot run end in one InputError naming file, line and field.
#include <gtest/gtest.h>

#include <string>

#include "base/input_error.h"
#include "traces/format.h"
#include "traces/reader.h"

namespace tidal::traces {
namespace {

std::string error_of(const std::string& text, const std::string& name) {
  try {
    read_trace_text(text, name);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST(HostileTrace, DuplicateColumnsAreErrors) {
  EXPECT_EQ(error_of("TIMESTAMP,ContextTokens,GeneratedTokens,ContextTokens\n"
                     "2023-11-16 18:15:46.6805900,374,44,1\n",
                     "conv.csv"),
            "conv.csv:1: ContextTokens: column appears twice in the header (in the azure header)");
  EXPECT_EQ(
      error_of("arrived_at,num_prefill_tokens,num_decode_tokens,arrived_at\n0,1,1,5\n", "v.csv"),
      "v.csv:1: arrived_at: column appears twice in the header (in the vidur header)");
}

TEST(HostileTrace, OverLongLinesAreRefusedBeforeParsing) {
  const std::string long_header = std::string(100'000, 'a') + "\n0\n";
  EXPECT_EQ(error_of(long_header, "h.csv"),
            "h.csv:1: first line of 100000 bytes, longer than the limit of 65536 for a header "
            "or a JSONL row");
  const std::string row = "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1}\n";
  const std::string long_row =
      "{\"id\":1,\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1," +
      std::string(size_t{1} << 24, ' ') + "}\n";
  EXPECT_EQ(error_of(row + long_row, "t.jsonl"),
            "t.jsonl:2: row: " + std::to_string(long_row.size() - 1) +
                " bytes, longer than the limit of 16777216 per row");
}

TEST(HostileTrace, ControlBytesInAFieldNameStayOnOneLine) {
  const std::string text =
      "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1,\"a\\nb\":1}\n";
  EXPECT_EQ(error_of(text, "t.jsonl"), "t.jsonl:1: 'a\\x0ab': unknown field");
}

}  // namespace
}  // namespace tidal::traces
