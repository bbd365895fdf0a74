#include "sim/warmup.h"

#include <cmath>

namespace tidal::sim {

bool excludes_warmup(const MetricsSpec& spec) {
  return spec.warmup_s > 0.0 || spec.exclude_first_per_client;
}

bool before_warmup(const MetricsSpec& spec, int64_t arrival_ns) {
  return arrival_ns < std::llround(spec.warmup_s * 1e9);
}

bool first_of_client(const MetricsSpec& spec, const Request& request) {
  return spec.exclude_first_per_client && request.turn == 0;
}

bool kept_in_metrics(const MetricsSpec& spec, const Request& request, int64_t arrival_ns) {
  return !before_warmup(spec, arrival_ns) && !first_of_client(spec, request);
}

}  // namespace tidal::sim
