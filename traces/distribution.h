// Distributions a generator spec names for token lengths, counts (turns, fan-out) and times
// (think time): fixed, uniform, exponential, lognormal, zipf, empirical. docs/generators.md
// lists every parameter and default.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "traces/random.h"

namespace tidal::traces {

enum class Quantity {
  tokens,   // integers, min 1 by default, scaled by length_scale
  count,    // integers, min 1 by default
  seconds,  // real numbers, min 0 by default
};

struct DistributionContext {
  Quantity quantity = Quantity::tokens;
  std::string empirical_field;  // "prompt" or "output": the default trace column of empirical
  std::string base_dir;         // relative empirical files resolve here when not empty
  double scale = 1.0;           // multiplies every sample after the min/max clamp
};

class Distribution {
 public:
  // `json` is an object with "dist", or a bare number meaning {"dist": "fixed", "value": n}.
  // InputError naming `path` on a bad spec.
  static Distribution parse(const nlohmann::json& json, const std::string& path,
                            const DistributionContext& context);

  // A sample: integral for tokens and counts.
  double sample(Rng& rng) const;
  int64_t sample_integer(Rng& rng) const { return static_cast<int64_t>(sample(rng)); }

 private:
  enum class Kind { fixed, uniform, exponential, lognormal, zipf, empirical };

  Kind kind_ = Kind::fixed;
  bool integral_ = true;
  double scale_ = 1.0;
  double min_ = 1.0;
  double max_ = 1.0;
  double a_ = 0.0;  // fixed: value; uniform: low; exponential: mean; lognormal: mu
  double b_ = 0.0;  // uniform: high; lognormal: sigma
  // zipf: cumulative weights of min..max; empirical: the trace's values.
  std::shared_ptr<const std::vector<double>> table_;  // [support size] or [num_requests]
};

}  // namespace tidal::traces
