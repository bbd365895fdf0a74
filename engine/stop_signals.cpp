#include "engine/stop_signals.h"

#include <signal.h>

#include <iterator>

#include <fmt/format.h>

namespace tidal::engine {
namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM};

std::atomic<int> g_stop_signal{0};  // lock-free, so the handler may store to it
static_assert(std::atomic<int>::is_always_lock_free);
struct sigaction g_previous[2];  // [kStopSignals] the handlers StopOnSignals replaced

void set_default_action() {
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  for (const int number : kStopSignals) sigaction(number, &action, nullptr);
}

extern "C" void on_stop_signal(int number) {
  g_stop_signal.store(number);
  set_default_action();  // sigaction is async-signal-safe: the next signal ends the process
}

}  // namespace

StopOnSignals::StopOnSignals() {
  g_stop_signal.store(0);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (const int number : kStopSignals) sigaddset(&action.sa_mask, number);
  for (size_t i = 0; i < std::size(kStopSignals); ++i) {
    sigaction(kStopSignals[i], &action, &g_previous[i]);
  }
}

StopOnSignals::~StopOnSignals() {
  for (size_t i = 0; i < std::size(kStopSignals); ++i) {
    sigaction(kStopSignals[i], &g_previous[i], nullptr);
  }
}

const std::atomic<int>& StopOnSignals::stop_signal() const {
  return g_stop_signal;
}

std::string signal_name(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
  }
  return fmt::format("signal {}", signal_number);
}

}  // namespace tidal::engine
