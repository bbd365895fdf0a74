// Seeded random numbers whose output is fixed by tidal's own code, not by the standard
// library's distributions (which differ between implementations). Built on std::mt19937_64,
// whose raw output the C++ standard does fix.
#pragma once

#include <cstdint>
#include <random>

namespace tidal::traces {

// splitmix64 finaliser: a well-mixed 64-bit function of its input.
uint64_t mix64(uint64_t x);
// An independent seed for sub-stream `stream` of `seed` (arrivals, lengths, ...).
uint64_t derive_seed(uint64_t seed, uint64_t stream);

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  uint64_t next_u64() { return engine_(); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform01();
  // Uniform in (0, 1]: safe under log().
  double uniform01_open_low() { return 1.0 - uniform01(); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
  // Uniform integer in [lo, hi], unbiased (rejection of the short last bucket).
  int64_t uniform_int(int64_t lo, int64_t hi);
  // Exponential with the given mean (inverse CDF).
  double exponential(double mean);
  // Standard normal by the Box-Muller transform (the second value is kept for the next call).
  double standard_normal();
  double lognormal(double mu, double sigma);
  // Gamma(shape, scale) by Marsaglia and Tsang; shape < 1 uses the U^(1/shape) boost.
  double gamma(double shape, double scale);

 private:
  std::mt19937_64 engine_;
  bool has_spare_normal_ = false;
  double spare_normal_ = 0.0;
};

}  // namespace tidal::traces
