// How reports print numbers: the house formats of base/number_format.h, which the console
// summary of `tidal simulate` shares.
#pragma once

#include "base/number_format.h"

namespace tidal::reports {

using base::format_count;
using base::format_dollars;
using base::format_latency;
using base::format_number;
using base::format_percent;
using base::format_rate;
using base::format_ratio;
using base::format_significant;

}  // namespace tidal::reports
