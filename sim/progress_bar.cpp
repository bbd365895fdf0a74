#include "sim/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "base/number_format.h"

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
  const std::string text = line(report, elapsed);
  std::fprintf(stderr, "\r%s%*s", text.c_str(),
               std::max(0, num_drawn_chars_ - static_cast<int>(text.size())), "");
  num_drawn_chars_ = std::max(num_drawn_chars_, static_cast<int>(text.size()));
  std::fflush(stderr);
}

std::string ProgressBar::line(const ProgressReport& report, double elapsed_s) {
  const double f = std::clamp(report.fraction_done, 0.0, 1.0);
  const int filled = static_cast<int>(f * kWidth);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), '.');
  const double simulated_s = static_cast<double>(report.now_ns) / 1e9;
  const double num_done = f * static_cast<double>(report.records.size());
  const double wall_s = elapsed_s > 0 ? elapsed_s : 1.0;
  const auto whole_s = static_cast<int64_t>(simulated_s);
  return fmt::format("simulating [{}] {:5.1f}%  {:.1f} s  sim {}:{:02}:{:02}  {}x  {} req/s", bar,
                     100.0 * f, elapsed_s, whole_s / 3600, whole_s / 60 % 60, whole_s % 60,
                     base::format_number(simulated_s / wall_s, 0),
                     base::format_number(num_done / wall_s, 0));
}

void ProgressBar::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r%*s\r", num_drawn_chars_, "");
  std::fflush(stderr);
  drawn_ = false;
  num_drawn_chars_ = 0;
}

}  // namespace tidal::sim
