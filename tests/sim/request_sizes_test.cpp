// A run holds one Request and one RequestRecord per request from start to end (2.3 million in
// bench/fleet_day): their sizes are its memory. Names are pointers (base/name.h), the 4-byte
// fields sit side by side, disaggregated serving keeps its part apart (HandoffRecord); a field
// added carelessly shows here first.
#include <gtest/gtest.h>

#include "sim/request_record.h"
#include "traces/request.h"

namespace tidal::sim {
namespace {

TEST(RequestSizes, ARequestAndItsRecordStayWithinTheirBytes) {
  EXPECT_EQ(sizeof(base::Name), sizeof(void*));
  EXPECT_LE(sizeof(Request), 192u);
  EXPECT_LE(sizeof(RequestRecord), 112u);
}

}  // namespace
}  // namespace tidal::sim
