// Stopping a replay cleanly on SIGINT / SIGTERM (docs/run-output.md, "Partial engine runs"). While
// a StopOnSignals lives, the first of these signals only stores its number (the replay polls it,
// ReplayOptions::stop_signal, and ends after the step in flight so the run folder can be
// written, marked partial); the handlers then go back to the default action, so a second signal
// ends the process at once.
#pragma once

#include <atomic>
#include <string>

namespace tidal::engine {

class StopOnSignals {
 public:
  StopOnSignals();  // installs the handlers and clears the stored signal
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;
  ~StopOnSignals();  // restores the handlers that were there before

  // 0 until a signal came, then its number.
  const std::atomic<int>& stop_signal() const;
};

// "SIGINT", "SIGTERM", else "signal N".
std::string signal_name(int signal_number);

}  // namespace tidal::engine
