// Rounding to the nearest integer with ties to even, independent of the FPU rounding mode.
#pragma once

#include <cmath>

namespace tidal::kernels {

inline double round_half_even(double x) {
  const double floor_x = std::floor(x);
  const double diff = x - floor_x;
  if (diff > 0.5) return floor_x + 1.0;
  if (diff < 0.5) return floor_x;
  return std::fmod(floor_x, 2.0) == 0.0 ? floor_x : floor_x + 1.0;
}

}  // namespace tidal::kernels
