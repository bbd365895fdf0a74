#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "perf/kernel_db_lookup.h"
#include "perf/kernel_db_policy.h"

namespace tidal::perf {
namespace {

// Shapes the lookup may use: of `dtype` with the wanted gating, at the wanted ep when
// `same_ep` (else at any ep: the nearest then includes the ep split).
bool usable(const MoeKey& key, const std::string& dtype, const MoeKey& wanted, bool same_ep) {
  return key.dtype == dtype && (!same_ep || key.ep == wanted.ep) && key.gated == wanted.gated;
}

// The most uniform distribution measured for `dtype` (moe_distribution_preference), else the
// first in key order; "" when the tables hold no usable shape of `dtype`.
std::string distribution_for(const KernelDbTables& tables, const std::string& dtype,
                             const MoeKey& wanted, bool same_ep) {
  std::string first;
  std::vector<std::string> held;
  for (const auto& [key, curve] : tables.moe) {
    if (!usable(key, dtype, wanted, same_ep)) continue;
    if (first.empty()) first = key.distribution;
    if (std::find(held.begin(), held.end(), key.distribution) == held.end()) {
      held.push_back(key.distribution);
    }
  }
  for (const std::string& preferred : moe_distribution_preference()) {
    if (std::find(held.begin(), held.end(), preferred) != held.end()) return preferred;
  }
  return first;
}

double shape_distance(const MoeKey& a, const MoeKey& b) {
  auto d = [](int64_t x, int64_t y) {
    return log_distance(static_cast<double>(x), static_cast<double>(y));
  };
  return d(a.hidden, b.hidden) + d(a.inter, b.inter) + d(a.topk, b.topk) +
         d(a.num_experts, b.num_experts) + d(a.tp, b.tp) + d(a.ep, b.ep);
}

}  // namespace

MoeLookup::MoeLookup(const KernelDbTables& tables, const std::vector<std::string>& dtypes,
                     const MoeKey& wanted, const KernelScaling& scaling,
                     const KernelScaling& priced_on)
    : MoeLookup(tables, dtypes, wanted, scaling) {
  priced_on_ = &priced_on;
}

MoeLookup::MoeLookup(const KernelDbTables& tables, const std::vector<std::string>& dtypes,
                     const MoeKey& wanted, const KernelScaling& scaling)
    : wanted_(wanted), scaling_(&scaling), measured_gpu_(tables.folders.kernel_gpu) {
  dtypes_tried_ =
      dtypes.empty() ? std::string("no moe_dtype for this format") : comma_separated(dtypes);
  // Rows at the wanted ep split first; a dtype measured at other splits only takes the nearest
  // of those.
  for (const bool same_ep : {true, false}) {
    for (const std::string& dtype : dtypes) {
      if (lookup(tables, dtype, same_ep)) return;
    }
  }
}

bool MoeLookup::lookup(const KernelDbTables& tables, const std::string& dtype, bool same_ep) {
  const std::string distribution = distribution_for(tables, dtype, wanted_, same_ep);
  if (distribution.empty()) return false;
  wanted_.dtype = dtype;
  wanted_.distribution = distribution;
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [key, curve] : tables.moe) {
    if (!usable(key, dtype, wanted_, same_ep) || key.distribution != distribution) continue;
    const double distance = shape_distance(key, wanted_);
    if (distance < best) {
      best = distance;
      measured_ = key;
      curve_ = &curve;
    }
  }
  return true;
}

bool MoeLookup::exact() const {
  return wanted_ == measured_;
}

double MoeLookup::seconds(double tokens) const {
  auto at_measured = [&](double x) { return scaling_->moe(x, measured_); };
  const double seconds = curve_->seconds(tokens, at_measured);
  if (kind() == CoverageKind::table) return seconds;
  const KernelScaling& priced = priced_on_ != nullptr ? *priced_on_ : *scaling_;
  return seconds * priced.moe(tokens, wanted_) / at_measured(tokens);
}

std::string MoeLookup::describe() const {
  if (!found()) {
    return fmt::format("no moe_perf rows of {} ({} experts)", dtypes_tried_,
                       wanted_.gated ? "gated" : "non-gated");
  }
  auto shape = [](const MoeKey& k) {
    if (k.ep == 1) {
      return fmt::format("hidden={} inter={} topk={} experts={} tp={}", k.hidden, k.inter, k.topk,
                         k.num_experts, k.tp);
    }
    return fmt::format("hidden={} inter={} topk={} experts={} tp={} ep={}", k.hidden, k.inter,
                       k.topk, k.num_experts, k.tp, k.ep);
  };
  const std::string range = fmt::format(
      "{}, tokens {}..{} measured{}", measured_.distribution, curve_->front(), curve_->back(),
      priced_on_ != nullptr
          ? fmt::format(" on {} (the same chip), scaled by the roofline", measured_gpu_)
          : std::string());
  if (exact()) return fmt::format("moe {} {}, {}", wanted_.dtype, shape(wanted_), range);
  return fmt::format("moe {} {} from measured {}, {}", wanted_.dtype, shape(wanted_),
                     shape(measured_), range);
}

}  // namespace tidal::perf
