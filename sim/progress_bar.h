// A one-line progress bar on stderr for long runs: drawn only when stderr is a terminal and
// the run has taken more than a second, redrawn at most ten times a second, erased at the end.
#pragma once

#include <chrono>

#include "sim/simulator.h"

namespace tidal::sim {

class ProgressBar final : public ProgressSink {
 public:
  // `enabled` false (e.g. --quiet) draws nothing; so does a stderr that is not a terminal.
  explicit ProgressBar(bool enabled);
  ~ProgressBar() override;
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(const ProgressReport& report) override;
  // Erases the bar if one was drawn.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_;
  Clock::time_point last_draw_;
};

}  // namespace tidal::sim
