#include "base/csv_text.h"

#include <optional>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace tidal::traces {
namespace {

TEST(CsvText, FormatSecondsRoundsToTheNearestMicrosecond) {
  EXPECT_EQ(base::format_seconds(0), "0.000000");
  EXPECT_EQ(base::format_seconds(1'234'567'499), "1.234567");
  EXPECT_EQ(base::format_seconds(1'234'567'500), "1.234568");
  EXPECT_EQ(base::format_seconds(1'234'567'890), "1.234568");
  EXPECT_EQ(base::format_seconds(3600'000'000'000), "3600.000000");
  EXPECT_EQ(base::format_seconds(-1500), "-0.000002");
}

TEST(CsvText, FieldsAreQuotedOnlyWhenTheyHoldACommaQuoteOrLineBreak) {
  std::string out;
  base::append_csv_field(out, "plain text");
  out += '|';
  base::append_csv_field(out, "a,b");
  out += '|';
  base::append_csv_field(out, "say \"hi\"");
  out += '|';
  base::append_csv_field(out, "two\nlines");
  out += '|';
  base::append_csv_field(out, "cr\r");
  out += '|';
  base::append_csv_field(out, "");
  EXPECT_EQ(out, "plain text|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"|\"cr\r\"|");
}

TEST(CsvText, QuotedTextDoublesEveryQuote) {
  std::string out;
  base::append_quoted_csv(out, " lead");
  base::append_quoted_csv(out, "\"");
  EXPECT_EQ(out, "\" lead\"\"\"\"\"");
}

TEST(CsvText, AppendsIntoAnFmtBufferAlike) {
  fmt::memory_buffer buf;
  base::append_csv_field(buf, "x,y");
  buf.push_back(',');
  base::append_seconds_if_set(buf, 2'500'000'000);
  buf.push_back(',');
  base::append_seconds_if_set(buf, -1);
  buf.push_back(',');
  base::append_fixed6_if_set(buf, std::optional<double>(0.1234567));
  buf.push_back(',');
  base::append_fixed6_if_set(buf, std::nullopt);
  EXPECT_EQ(fmt::to_string(buf), "\"x,y\",2.500000,,0.123457,");
}

TEST(CsvText, SeveralFieldsAreCommaSeparated) {
  std::string out;
  base::append_csv_fields(out, {"a", "b,c", ""});
  out += '|';
  base::append_seconds_fields_if_set(out, {0, -1, 1'500'000});
  out += '|';
  base::append_fixed6_fields_if_set(out, {std::nullopt, 2.0});
  out += '|';
  base::append_csv_fields(out, {});
  EXPECT_EQ(out, "a,\"b,c\",|0.000000,,0.001500|,2.000000|");
}

TEST(CsvText, FlushIfLargeWritesOnlyPastOneMebibyte) {
  std::ostringstream out;
  std::string buf(1 << 20, 'a');
  base::flush_if_large(buf, out);
  EXPECT_EQ(buf.size(), size_t{1} << 20);
  EXPECT_TRUE(out.str().empty());
  buf.push_back('b');
  base::flush_if_large(buf, out);
  EXPECT_TRUE(buf.empty());
  EXPECT_EQ(out.str().size(), (size_t{1} << 20) + 1);
}

}  // namespace
}  // namespace tidal::traces
