#include "traces/civil_time.h"

#include <gtest/gtest.h>

#include "base/row_error.h"

namespace tidal::traces {
namespace {

TEST(CivilTime, DaysSinceEpoch) {
  EXPECT_EQ(days_since_epoch(1970, 1, 1), 0);
  EXPECT_EQ(days_since_epoch(1970, 3, 1), 59);
  EXPECT_EQ(days_since_epoch(2000, 3, 1), 11017);  // 2000 is a leap year
  EXPECT_EQ(days_since_epoch(2023, 11, 16), 19677);
  EXPECT_EQ(days_since_epoch(2024, 5, 10), 19853);
}

TEST(CivilTime, AzureTimestampWithSevenFractionDigits) {
  // 2023-11-16 is day 19677: 19677 * 86400 + 18 h 17 min 3 s = 1700158623 s.
  EXPECT_EQ(parse_civil_time_ns("2023-11-16 18:17:03.9799600", "TIMESTAMP"), 1700158623'979960000);
  EXPECT_EQ(parse_civil_time_ns("2023-11-16 18:17:03", "TIMESTAMP"), 1700158623'000000000);
  EXPECT_EQ(parse_civil_time_ns("2023-11-16T18:17:03.5", "TIMESTAMP"), 1700158623'500000000);
  EXPECT_EQ(parse_civil_time_ns("2023-11-16 18:17:03.123456789", "TIMESTAMP"),
            1700158623'123456789);
}

TEST(CivilTime, ZoneSuffixesConvertToUtc) {
  const int64_t utc = parse_civil_time_ns("2024-05-10 00:00:00.004000", "TIMESTAMP");
  EXPECT_EQ(parse_civil_time_ns("2024-05-10 00:00:00.004000+00:00", "TIMESTAMP"), utc);
  EXPECT_EQ(parse_civil_time_ns("2024-05-10 00:00:00.004000Z", "TIMESTAMP"), utc);
  EXPECT_EQ(parse_civil_time_ns("2024-05-10 02:30:00.004000+02:30", "TIMESTAMP"), utc);
  EXPECT_EQ(parse_civil_time_ns("2024-05-09 23:00:00.004000-01:00", "TIMESTAMP"), utc);
}

TEST(CivilTime, RejectsMalformedAndImpossibleTimes) {
  for (const char* text : {"", "2023-11-16", "2023/11/16 18:17:03", "2023-11-16 18:17:03.",
                           "2023-11-16 18:17:03.1234567890", "2023-11-16 18:17:03+0100",
                           "2023-02-29 00:00:00", "2023-13-01 00:00:00", "2023-11-16 24:00:00",
                           "1800-01-01 00:00:00", "2023-11-16 18:17:0x"}) {
    EXPECT_THROW(parse_civil_time_ns(text, "TIMESTAMP"), base::RowError) << text;
  }
  try {
    parse_civil_time_ns("2023-02-29 00:00:00", "TIMESTAMP");
  } catch (const base::RowError& error) {
    EXPECT_EQ(error.field(), "TIMESTAMP");
    EXPECT_STREQ(error.what(), "impossible date or time: '2023-02-29 00:00:00'");
  }
}

}  // namespace
}  // namespace tidal::traces
