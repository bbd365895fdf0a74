#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "perf/kernel_db_lookup.h"

namespace tidal::perf {

double log_distance(double a, double b) {
  return std::abs(std::log(a / b));
}

GemmLookup::GemmLookup(const KernelDbTables& tables, const std::vector<std::string>& dtypes,
                       int64_t n, int64_t k, const KernelScaling& scaling)
    : wanted_{"", n, k}, scaling_(&scaling) {
  dtypes_tried_ =
      dtypes.empty() ? std::string("no gemm_dtype for this format") : comma_separated(dtypes);
  for (const std::string& dtype : dtypes) {
    const auto first = tables.gemm.lower_bound(GemmKey{dtype, 0, 0});
    if (first == tables.gemm.end() || first->first.dtype != dtype) continue;
    wanted_.dtype = dtype;
    if (const auto exact = tables.gemm.find(wanted_); exact != tables.gemm.end()) {
      measured_ = wanted_;
      curve_ = &exact->second;
      return;
    }
    double best = std::numeric_limits<double>::infinity();
    for (auto it = first; it != tables.gemm.end() && it->first.dtype == dtype; ++it) {
      const double distance =
          log_distance(static_cast<double>(n), static_cast<double>(it->first.n)) +
          log_distance(static_cast<double>(k), static_cast<double>(it->first.k));
      if (distance < best) {
        best = distance;
        measured_ = it->first;
        curve_ = &it->second;
      }
    }
    return;
  }
}

double GemmLookup::seconds(double m) const {
  auto at_measured = [&](double x) {
    return scaling_->gemm(x, static_cast<double>(measured_.n), static_cast<double>(measured_.k),
                          measured_.dtype);
  };
  const double seconds = curve_->seconds(m, at_measured);
  if (exact()) return seconds;
  return seconds *
         scaling_->gemm(m, static_cast<double>(wanted_.n), static_cast<double>(wanted_.k),
                        wanted_.dtype) /
         at_measured(m);
}

std::string GemmLookup::describe() const {
  if (!found()) return fmt::format("no gemm_perf rows of {}", dtypes_tried_);
  const std::string range = fmt::format("m {}..{} measured", curve_->front(), curve_->back());
  if (exact())
    return fmt::format("gemm {} n={} k={}, {}", wanted_.dtype, wanted_.n, wanted_.k, range);
  return fmt::format("gemm {} n={} k={} from measured n={} k={}, {}", wanted_.dtype, wanted_.n,
                     wanted_.k, measured_.n, measured_.k, range);
}

}  // namespace tidal::perf
