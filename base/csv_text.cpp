#include "base/csv_text.h"

namespace tidal::base {

std::string format_seconds(int64_t ns) {
  const bool negative = ns < 0;
  const int64_t magnitude = negative ? -ns : ns;
  const int64_t us = (magnitude + 500) / 1000;
  return fmt::format("{}{}.{:06}", negative ? "-" : "", us / 1'000'000, us % 1'000'000);
}

}  // namespace tidal::base
