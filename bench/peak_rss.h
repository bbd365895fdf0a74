// The process's peak resident set so far, for the benchmarks' memory figures.
#pragma once

#include <sys/resource.h>

namespace tidal::bench {

// In MiB (getrusage's ru_maxrss is in KiB on Linux).
inline double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace tidal::bench
