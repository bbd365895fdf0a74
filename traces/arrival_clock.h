// Turns a format's own timestamps into seconds since the first row, checking order.
#pragma once

#include <optional>
#include <string>

#include <fmt/format.h>

#include "base/row_error.h"
#include "traces/limits.h"

namespace tidal::traces {

// T is the raw timestamp type (integer ns or ms, or double seconds).
template <typename T>
class ArrivalClock {
 public:
  // `field` names the column in errors; `units_per_second` converts raw differences (dividing, so
  // 3536999 ms gives exactly 3536.999 s);
  // `sorted` makes any step back in time an error (formats that promise sorted rows),
  // otherwise only times before the first row (time 0) are.
  ArrivalClock(std::string field, double units_per_second, bool sorted)
      : field_(std::move(field)), units_per_second_(units_per_second), sorted_(sorted) {}

  // Seconds since the first row's time. Changes nothing when it throws.
  double arrival_s(T raw) {
    if (!origin_) {
      origin_ = raw;
      last_ = raw;
      return 0.0;
    }
    if (sorted_ && raw < last_) {
      throw base::RowError(field_,
                           fmt::format("goes back in time by {} s (rows must be sorted by time)",
                                       seconds(last_ - raw)));
    }
    if (raw < *origin_) {
      throw base::RowError(field_, fmt::format("{} s before the first row, which defines time 0",
                                               seconds(*origin_ - raw)));
    }
    const double arrival = seconds(raw - *origin_);
    if (arrival > base::kMaxArrivalS) {
      throw base::RowError(
          field_, fmt::format("{} s after the first row; tidal accepts at most {} s", arrival,
                              base::kMaxArrivalS));
    }
    last_ = raw;
    return arrival;
  }

 private:
  double seconds(T difference) const { return static_cast<double>(difference) / units_per_second_; }

  std::string field_;
  double units_per_second_;
  bool sorted_;
  std::optional<T> origin_;
  T last_{};
};

}  // namespace tidal::traces
