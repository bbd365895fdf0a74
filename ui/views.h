// The dashboard's views (the tabs beside the scenario editor), by name for scripts.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace tidal::ui {

enum class View { workload, queue, fleet, latency, cdf, kv, cost, tenants, compare };

inline constexpr std::array<std::string_view, 9> kViewNames{
    "workload", "queue", "fleet", "latency", "cdf", "kv", "cost", "tenants", "compare"};

inline std::string_view view_name(View view) {
  return kViewNames[static_cast<size_t>(view)];
}

inline std::optional<View> parse_view(std::string_view name) {
  for (size_t i = 0; i < kViewNames.size(); ++i) {
    if (kViewNames[i] == name) return static_cast<View>(i);
  }
  return std::nullopt;
}

}  // namespace tidal::ui
