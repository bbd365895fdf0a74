#include <limits>

#include <fmt/format.h>

#include "perf/kernel_db_lookup.h"

namespace tidal::perf {
namespace {

// Ranks shapes of the wanted window before full-attention stand-ins, whatever their heads.
constexpr double kWindowMismatch = 1e3;

}  // namespace

AttentionLookup::AttentionLookup(const KernelDbTables& tables, Phase phase,
                                 const AttentionKey& wanted, const KernelScaling& scaling)
    : phase_(phase), wanted_(wanted), scaling_(&scaling) {
  const std::map<AttentionKey, CurveGrid>& table =
      phase == Phase::context ? tables.context_attention : tables.generation_attention;
  if (const auto exact = table.find(wanted); exact != table.end()) {
    measured_ = wanted;
    grid_ = &exact->second;
    return;
  }
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [key, grid] : table) {
    if (key.kv_dtype != wanted.kv_dtype) continue;
    if (key.window != wanted.window && key.window != 0) continue;
    auto d = [](int64_t a, int64_t b) {
      return log_distance(static_cast<double>(a), static_cast<double>(b));
    };
    const double distance =
        d(key.num_heads, wanted.num_heads) + d(key.num_kv_heads, wanted.num_kv_heads) +
        d(key.head_dim, wanted.head_dim) + (key.window == wanted.window ? 0.0 : kWindowMismatch);
    if (distance < best) {
      best = distance;
      measured_ = key;
      grid_ = &grid;
    }
  }
}

double AttentionLookup::roofline_of(const AttentionKey& shape, double batch, double length) const {
  return phase_ == Phase::context ? scaling_->attention(shape, batch, length, 0.0)
                                  : scaling_->attention(shape, batch, 1.0, length);
}

double AttentionLookup::roofline(double c, double p) const {
  return scaling_->attention(wanted_, 1.0, c, p);
}

double AttentionLookup::seconds(double batch, double length) const {
  auto at_measured = [&](double b, double x) { return roofline_of(measured_, b, x); };
  const double seconds = grid_->seconds(batch, length, at_measured);
  if (exact()) return seconds;
  return seconds * roofline_of(wanted_, batch, length) / at_measured(batch, length);
}

std::string AttentionLookup::describe() const {
  const char* table =
      phase_ == Phase::context ? "context_attention_perf" : "generation_attention_perf";
  auto shape = [](const AttentionKey& k) {
    return fmt::format("heads={} kv_heads={} head_dim={} window={} kv {}", k.num_heads,
                       k.num_kv_heads, k.head_dim, k.window, k.kv_dtype);
  };
  if (!found()) return fmt::format("no {} rows with a {} KV cache", table, wanted_.kv_dtype);
  const char* axis = phase_ == Phase::context ? "isl" : "step";
  const MeasuredCurve& first = grid_->curves().front();
  const std::string range =
      fmt::format("batch {}..{} measured, {} {}..{} at batch {}", grid_->outer().front(),
                  grid_->outer().back(), axis, first.front(), first.back(), grid_->outer().front());
  if (exact()) return fmt::format("{} {}, {}", table, shape(wanted_), range);
  return fmt::format("{} {} from measured {}, {}", table, shape(wanted_), shape(measured_), range);
}

}  // namespace tidal::perf
