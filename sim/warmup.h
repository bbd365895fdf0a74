// Which requests the latency and throughput metrics leave out as warm-up (scenario
// `metrics.warmup_s` and `metrics.exclude_first_per_client`; docs/run-output.md, "Warm-up").
// The simulator asks it for the ITL samples it keeps, the metrics for everything else.
#pragma once

#include <cstdint>

#include "sim/scenario.h"
#include "traces/request.h"

namespace tidal::sim {

// True when the spec leaves anything out; false keeps every metric as without it.
bool excludes_warmup(const MetricsSpec& spec);
// Arrived (at the router) before warmup_s.
bool before_warmup(const MetricsSpec& spec, int64_t arrival_ns);
// exclude_first_per_client and turn 0: the first request of a closed-loop client, of a session
// or of an agent job.
bool first_of_client(const MetricsSpec& spec, const Request& request);
// Neither of the two.
bool kept_in_metrics(const MetricsSpec& spec, const Request& request, int64_t arrival_ns);

}  // namespace tidal::sim
