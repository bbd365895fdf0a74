// Times the engine's shared-memory all-reduce (engine::SharedMemoryGroup) between `tp` rank
// threads, as the tensor-parallel executor runs it twice per layer.
#pragma once

#include <cstddef>

namespace tidal::profile {

// Median seconds rank 0 spends in one all_reduce_sum of `num_floats` floats (one warm-up call,
// then `num_repeats` timed calls on every rank). tp >= 2.
double time_allreduce(int tp, size_t num_floats, int num_repeats);

}  // namespace tidal::profile
