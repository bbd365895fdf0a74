#include "sim/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace tidal::sim {
namespace {

constexpr double kShowAfterSeconds = 1.0;
constexpr double kRedrawSeconds = 0.1;
constexpr int kWidth = 40;  // characters inside the brackets

}  // namespace

ProgressBar::ProgressBar(bool enabled)
    : enabled_(enabled && isatty(STDERR_FILENO) == 1), start_(Clock::now()), last_draw_(start_) {}

ProgressBar::~ProgressBar() {
  finish();
}

void ProgressBar::update(const ProgressReport& report) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < kShowAfterSeconds) return;
  if (drawn_ && std::chrono::duration<double>(now - last_draw_).count() < kRedrawSeconds) return;
  last_draw_ = now;
  drawn_ = true;
  const double f = std::clamp(report.fraction_done, 0.0, 1.0);
  const int filled = static_cast<int>(f * kWidth);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), '.');
  std::fprintf(stderr, "\rsimulating [%s] %5.1f%%  %.1f s", bar.c_str(), 100.0 * f, elapsed);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r%*s\r", kWidth + 40, "");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace tidal::sim
