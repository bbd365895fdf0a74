// Independent simulations spread over threads (`tidal calibrate --threads`, bench/silicon): each
// item's result lands by its index, so the output does not depend on the number of threads.
#pragma once

#include <cstddef>
#include <functional>

namespace tidal::validate {

// Runs work(i) for every i in [0, n) on at most num_threads threads (at least one) and returns
// when all are done. `on_done(i, seconds)`, when given, is called after each item, one call at a
// time. The first exception an item throws is rethrown here once every thread has stopped; the
// items not yet started are skipped.
void parallel_for(size_t n, int num_threads, const std::function<void(size_t)>& work,
                  const std::function<void(size_t, double)>& on_done = {});

}  // namespace tidal::validate
