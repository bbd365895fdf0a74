// Bounds on one simulated run (docs/scenario.md, "Limits"), so that every run ends in bounded
// memory and time: what the simulator refuses before it starts, and the guards of its event loop.
#pragma once

#include <cstdint>

#include "sim/scenario.h"

namespace tidal::sim {

// Replicas the pools of a fleet can hold at once, summed (each live replica holds its own
// scheduler and KV pool: a few KB idle, growing with the KV blocks it has used, up to a few MB;
// fleet::kMaxReplicas bounds one pool).
inline constexpr int64_t kMaxFleetReplicas = 20'000;

// Timeline rows, peak-to-mean bins and autoscaler evaluations (per evaluated pool) of one run:
// the span up to the last arrival divided by each interval stays at most this ...
inline constexpr int64_t kMaxIntervalsPerRun = 1'000'000;
// ... and a run still going at this many timeline rows or peak bins is stopped.
inline constexpr int64_t kMaxIntervalsRunning = 2 * kMaxIntervalsPerRun;

// InputError naming the scenario file and key when the span up to the last arrival holds more
// than kMaxIntervalsPerRun of timeline_interval_s, metrics.peak_bin_s or an evaluated pool's
// autoscaler.evaluation_interval_s.
void check_run_limits(const Scenario& scenario, int64_t last_arrival_ns);

// The time past which the event loop calls check_run_time: kMaxIntervalsRunning of the shorter
// of `timeline_interval_ns` and metrics.peak_bin_s, at most base::kMaxSimulatedNs (without
// overflowing the product for intervals of hours).
int64_t running_time_limit_ns(const Scenario& scenario, int64_t timeline_interval_ns);

// InputError when the event loop reaches `now_ns` past base::kMaxSimulatedNs, or past
// kMaxIntervalsRunning of the scenario's timeline rows or peak bins (a run that never ends,
// such as one whose fleet never becomes warm).
void check_run_time(const Scenario& scenario, int64_t now_ns);

}  // namespace tidal::sim
