// Seeded random inputs and error measures shared by the kernel tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace tidal::kernels::testing {

// Uniform in [lo, hi) from 53 bits of the engine (the same on every standard library).
inline double uniform(std::mt19937_64& rng, double lo, double hi) {
  return lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
}

inline int64_t uniform_int(std::mt19937_64& rng, int64_t lo, int64_t hi) {  // [lo, hi]
  return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

// Values with magnitude in [0.05, 1) and a random sign: never zero.
inline std::vector<float> random_values(std::mt19937_64& rng, int64_t count, float scale = 1.0f) {
  std::vector<float> values(count);
  for (float& v : values) {
    const double magnitude = uniform(rng, 0.05, 1.0);
    v = static_cast<float>((rng() & 1) ? magnitude : -magnitude) * scale;
  }
  return values;
}

// max |a - b| / max |b|: the error relative to the size of the expected values.
inline double relative_error(const std::vector<float>& actual, const std::vector<float>& expected) {
  double max_diff = 0.0;
  double max_expected = 0.0;
  for (size_t i = 0; i < expected.size(); ++i) {
    max_diff = std::max(max_diff, std::fabs(static_cast<double>(actual[i]) - expected[i]));
    max_expected = std::max(max_expected, std::fabs(static_cast<double>(expected[i])));
  }
  return max_diff / std::max(max_expected, 1e-30);
}

}  // namespace tidal::kernels::testing
