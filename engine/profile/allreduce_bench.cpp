#include "engine/profile/allreduce_bench.h"

#include <chrono>
#include <thread>
#include <vector>

#include "engine/profile/piecewise_fit.h"
#include "engine/shm_communicator.h"

namespace tidal::profile {

double time_allreduce(int tp, size_t num_floats, int num_repeats) {
  engine::SharedMemoryGroup group(tp);
  std::vector<std::vector<float>> buffers(static_cast<size_t>(tp),
                                          std::vector<float>(num_floats, 1.0f));  // [tp][count]
  std::vector<double> seconds;                                                    // [repeats]
  auto run_rank = [&](int rank) {
    models::Communicator& comm = group.communicator(rank);
    float* buf = buffers[static_cast<size_t>(rank)].data();
    for (int r = 0; r <= num_repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      comm.all_reduce_sum(buf, num_floats);
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (rank == 0 && r > 0) seconds.push_back(elapsed);
    }
  };
  std::vector<std::thread> peers;  // ranks 1..tp-1
  for (int rank = 1; rank < tp; ++rank) peers.emplace_back(run_rank, rank);
  run_rank(0);
  for (std::thread& peer : peers) peer.join();
  return median(seconds);
}

}  // namespace tidal::profile
