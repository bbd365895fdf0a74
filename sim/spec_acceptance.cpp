#include "sim/spec_acceptance.h"

#include <cmath>

namespace tidal::sim {

AcceptanceModel::AcceptanceModel(double acceptance_rate, uint64_t seed)
    : acceptance_rate_(acceptance_rate), rng_(seed) {}

int32_t AcceptanceModel::sample_accepted(int32_t num_drafted, double acceptance_rate) {
  int32_t accepted = 0;
  while (accepted < num_drafted && rng_.uniform01() < acceptance_rate) ++accepted;
  return accepted;
}

double expected_tokens_per_step(double acceptance_rate, int32_t num_drafted) {
  if (acceptance_rate >= 1.0) return static_cast<double>(num_drafted) + 1.0;
  return (1.0 - std::pow(acceptance_rate, num_drafted + 1)) / (1.0 - acceptance_rate);
}

}  // namespace tidal::sim
