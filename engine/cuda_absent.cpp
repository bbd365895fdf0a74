// The CUDA rank entry points of a tidal built without the CUDA backend (no nvcc at configure
// time): no devices, and asking for them is an InputError that says so.
#include "base/input_error.h"
#include "engine/cuda_ranks.h"

namespace tidal::engine {

bool cuda_backend_built() {
  return false;
}

int cuda_device_count() {
  return 0;
}

std::string cuda_device_name(int) {
  return "";
}

void check_cuda_ranks(int32_t, int64_t) {
  throw InputError(
      "--backend: cuda: this tidal was built without the CUDA backend (no nvcc when it was "
      "configured); rebuild on a machine with the CUDA toolkit, or use --backend cpu");
}

std::unique_ptr<RankGroup> make_cuda_rank_group(std::span<const models::ModelWeights* const>,
                                                const ExecutorConfig& config) {
  check_cuda_ranks(config.tp, config.num_cpu_blocks);
  return nullptr;
}

std::vector<double> measure_nccl_all_reduce(int32_t tp, int64_t, std::span<const int64_t>, int) {
  check_cuda_ranks(tp, 0);
  return {};
}

}  // namespace tidal::engine
