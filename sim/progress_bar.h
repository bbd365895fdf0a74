// A one-line progress bar on stderr for long runs: drawn only when stderr is a terminal and
// the run has taken more than a second, redrawn at most ten times a second, erased at the end.
// Beside the bar: the share of requests done, the wall time, the simulated time reached, and
// the rates so far (simulated seconds and requests per wall second).
#pragma once

#include <chrono>
#include <string>

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

  // The line drawn for `report` after `elapsed_s` wall seconds (without the leading '\r').
  static std::string line(const ProgressReport& report, double elapsed_s);

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool drawn_ = false;
  int num_drawn_chars_ = 0;  // of the line drawn last, to erase it
  Clock::time_point start_;
  Clock::time_point last_draw_;
};

}  // namespace tidal::sim
