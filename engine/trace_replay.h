// Replays a trace on the engine in real time: a request is handed to the engine once the wall
// clock passes its (scaled) arrival time, and the engine steps whenever it has work. A request
// with deps arrives when the later of its own arrival and its last dependency's finish has come;
// a rejected dependency rejects it too.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/clock.h"
#include "engine/engine.h"
#include "engine/run_metrics.h"
#include "traces/request.h"

namespace tidal::engine {

// The replay runs in real time, so it refuses arrivals (after time_scale) later than a day.
inline constexpr double kMaxReplayArrivalS = 86'400.0;

struct ReplayOptions {
  double time_scale = 1.0;    // arrival times are multiplied by this (0: all arrive at once)
  double length_scale = 1.0;  // prompt and output lengths are multiplied by this
  int64_t max_requests = 0;   // keep the first N requests by arrival; 0 keeps all
  uint64_t prompt_seed = 0;   // seeds the synthesized prompt tokens
  int64_t timeline_interval_ns = 1'000'000'000;
  // Told (requests finished or rejected, requests) whenever the first number grows; may be empty.
  std::function<void(int64_t num_done, int64_t num_requests)> on_progress;
  // When set, the replay ends after the step in flight once it holds a nonzero value (the number
  // of the signal that asked to stop, engine/stop_signals.h), leaving the rest unfinished.
  const std::atomic<int>* stop_signal = nullptr;
};

struct EngineRun {
  std::vector<Request> requests;       // as replayed (scaled, sorted by arrival)
  std::vector<RequestRecord> records;  // [requests.size()]
  std::vector<StepRecord> steps;       // every executed step, in order
  std::vector<StateSample> states;     // engine state after each step
  std::vector<double> itl_s;           // every inter-token gap
  int64_t busy_ns = 0;                 // sum of step durations
  int64_t end_ns = 0;                  // when the last request finished or was rejected
  double wall_s = 0.0;                 // replay wall time
  int stop_signal = 0;                 // nonzero: stopped early by that signal (a partial run)
};

// Scales arrivals (x time_scale) and lengths (x length_scale, rounded, at least 1; prefix hashes
// cut to the source blocks the scaled prompt still touches), sorts by arrival (stable) and keeps
// the first max_requests. InputError for a negative or non-finite scale, an arrival after
// kMaxReplayArrivalS or a length beyond base::kMaxTokens.
std::vector<Request> prepare_requests(std::vector<Request> requests, const ReplayOptions& options);

// Replays prepared requests (see prepare_requests) until every one finished or was rejected, or
// until options.stop_signal asks it to stop.
EngineRun replay(Engine& engine, std::vector<Request> requests, const ReplayOptions& options,
                 Clock& clock);

}  // namespace tidal::engine
