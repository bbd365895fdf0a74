#include "traces/csv_text.h"

#include <optional>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace tidal::traces {
namespace {

TEST(CsvText, FormatSecondsRoundsToTheNearestMicrosecond) {
  EXPECT_EQ(format_seconds(0), "0.000000");
  EXPECT_EQ(format_seconds(1'234'567'499), "1.234567");
  EXPECT_EQ(format_seconds(1'234'567'500), "1.234568");
  EXPECT_EQ(format_seconds(1'234'567'890), "1.234568");
  EXPECT_EQ(format_seconds(3600'000'000'000), "3600.000000");
  EXPECT_EQ(format_seconds(-1500), "-0.000002");
}

TEST(CsvText, FieldsAreQuotedOnlyWhenTheyHoldACommaQuoteOrLineBreak) {
  std::string out;
  append_csv_field(out, "plain text");
  out += '|';
  append_csv_field(out, "a,b");
  out += '|';
  append_csv_field(out, "say \"hi\"");
  out += '|';
  append_csv_field(out, "two\nlines");
  out += '|';
  append_csv_field(out, "cr\r");
  out += '|';
  append_csv_field(out, "");
  EXPECT_EQ(out, "plain text|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"|\"cr\r\"|");
}

TEST(CsvText, QuotedTextDoublesEveryQuote) {
  std::string out;
  append_quoted_csv(out, " lead");
  append_quoted_csv(out, "\"");
  EXPECT_EQ(out, "\" lead\"\"\"\"\"");
}

TEST(CsvText, AppendsIntoAnFmtBufferAlike) {
  fmt::memory_buffer buf;
  append_csv_field(buf, "x,y");
  buf.push_back(',');
  append_seconds_if_set(buf, 2'500'000'000);
  buf.push_back(',');
  append_seconds_if_set(buf, -1);
  buf.push_back(',');
  append_fixed6_if_set(buf, std::optional<double>(0.1234567));
  buf.push_back(',');
  append_fixed6_if_set(buf, std::nullopt);
  EXPECT_EQ(fmt::to_string(buf), "\"x,y\",2.500000,,0.123457,");
}

TEST(CsvText, SeveralFieldsAreCommaSeparated) {
  std::string out;
  append_csv_fields(out, {"a", "b,c", ""});
  out += '|';
  append_seconds_fields_if_set(out, {0, -1, 1'500'000});
  out += '|';
  append_fixed6_fields_if_set(out, {std::nullopt, 2.0});
  out += '|';
  append_csv_fields(out, {});
  EXPECT_EQ(out, "a,\"b,c\",|0.000000,,0.001500|,2.000000|");
}

TEST(CsvText, FlushIfLargeWritesOnlyPastOneMebibyte) {
  std::ostringstream out;
  std::string buf(1 << 20, 'a');
  flush_if_large(buf, out);
  EXPECT_EQ(buf.size(), size_t{1} << 20);
  EXPECT_TRUE(out.str().empty());
  buf.push_back('b');
  flush_if_large(buf, out);
  EXPECT_TRUE(buf.empty());
  EXPECT_EQ(out.str().size(), (size_t{1} << 20) + 1);
}

}  // namespace
}  // namespace tidal::traces
