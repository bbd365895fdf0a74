#include "sim/spec_class_acceptance.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace tidal::sim {
namespace {

bool has_class(std::span<const SloClass> classes, const std::string& name) {
  return std::any_of(classes.begin(), classes.end(),
                     [&](const SloClass& c) { return c.name == name; });
}

}  // namespace

std::map<std::string, double> read_acceptance_by_class(JsonObject& speculative_obj) {
  std::map<std::string, double> rates;
  const nlohmann::json* value = speculative_obj.child("acceptance_by_class");
  if (value == nullptr || value->is_null()) return rates;
  JsonObject obj(*value, speculative_obj.path_of("acceptance_by_class"), speculative_obj.file());
  for (const auto& [name, rate] : value->items()) {
    const double alpha = obj.number(name, 0.0);
    // Below 1: no workload accepts every draft, and the expected tokens per step
    // (1 - alpha^(k+1)) / (1 - alpha) stay a finite sum.
    if (!(alpha >= 0.0 && alpha < 1.0)) {
      obj.fail(name, fmt::format("must be in [0, 1), got {}", alpha));
    }
    rates[name] = alpha;
  }
  return rates;
}

void check_acceptance_classes(const std::vector<PoolSpec>& pools,
                              const std::vector<SloClass>& classes, const std::string& file) {
  for (size_t p = 0; p < pools.size(); ++p) {
    for (const auto& [name, rate] : pools[p].speculative.acceptance_by_class) {
      if (has_class(classes, name)) continue;
      std::string known;
      for (const SloClass& c : classes) known += (known.empty() ? "" : ", ") + c.name;
      throw_at(file, fmt::format("fleet.pools[{}].speculative.acceptance_by_class.{}", p, name),
               fmt::format("no workload has slo_class \"{}\" (classes: {})", name, known));
    }
  }
}

std::vector<std::optional<double>> acceptance_by_class_index(const SpeculativeSpec& spec,
                                                             std::span<const SloClass> classes) {
  std::vector<std::optional<double>> rates;  // [num slo classes]
  if (spec.acceptance_by_class.empty()) return rates;
  rates.resize(classes.size());
  for (const auto& [name, rate] : spec.acceptance_by_class) {
    if (!has_class(classes, name)) {
      throw std::logic_error("sim: acceptance_by_class names an unknown slo_class " + name);
    }
  }
  for (size_t c = 0; c < classes.size(); ++c) {
    const auto found = spec.acceptance_by_class.find(classes[c].name);
    if (found != spec.acceptance_by_class.end()) rates[c] = found->second;
  }
  return rates;
}

}  // namespace tidal::sim
