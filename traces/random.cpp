#include "traces/random.h"

#include <cmath>
#include <numbers>

namespace tidal::traces {

uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t derive_seed(uint64_t seed, uint64_t stream) {
  return mix64(mix64(seed) ^ mix64(~stream));
}

double Rng::uniform01() {
  constexpr double kTwoPowMinus53 = 1.0 / 9007199254740992.0;
  return static_cast<double>(engine_() >> 11) * kTwoPowMinus53;
}

int64_t Rng::uniform_int(int64_t lo, int64_t hi) {
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
  if (range == 0) return static_cast<int64_t>(engine_());  // the whole 64-bit range
  const uint64_t limit = UINT64_MAX - UINT64_MAX % range;  // reject the short last bucket
  uint64_t x = engine_();
  while (x >= limit) x = engine_();
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + x % range);
}

double Rng::exponential(double mean) {
  return -mean * std::log(uniform01_open_low());
}

double Rng::standard_normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  const double radius = std::sqrt(-2.0 * std::log(uniform01_open_low()));
  const double angle = 2.0 * std::numbers::pi * uniform01();
  spare_normal_ = radius * std::sin(angle);
  has_spare_normal_ = true;
  return radius * std::cos(angle);
}

double Rng::lognormal(double mu, double sigma) {
  return std::exp(mu + sigma * standard_normal());
}

double Rng::gamma(double shape, double scale) {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) * U^(1/a).
    const double boost = std::pow(uniform01_open_low(), 1.0 / shape);
    return gamma(shape + 1.0, scale) * boost;
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    const double x = standard_normal();
    const double t = 1.0 + c * x;
    if (t <= 0.0) continue;
    const double v = t * t * t;
    const double log_u = std::log(uniform01_open_low());
    if (log_u < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v * scale;
  }
}

}  // namespace tidal::traces
