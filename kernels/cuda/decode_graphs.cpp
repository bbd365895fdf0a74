#include "kernels/cuda/decode_graphs.h"

#include <stdexcept>
#include <string>

#include "kernels/cuda/cuda_check.h"

namespace tidal::kernels::cuda {

std::vector<int64_t> default_decode_batch_sizes() {
  std::vector<int64_t> sizes{1, 2, 4};
  for (int64_t n = 8; n <= 64; n += 8) sizes.push_back(n);
  for (int64_t n = 80; n <= 128; n += 16) sizes.push_back(n);
  for (int64_t n = 160; n <= 256; n += 32) sizes.push_back(n);
  return sizes;
}

int64_t padded_batch_size(const std::vector<int64_t>& sizes, int64_t num_seqs) {
  for (const int64_t size : sizes) {
    if (size >= num_seqs) return size;
  }
  return -1;
}

DecodeGraphs::~DecodeGraphs() {
  clear();
}

void DecodeGraphs::clear() {
  for (auto& [size, entry] : graphs_) cudaGraphExecDestroy(entry.exec);
  graphs_.clear();
}

void DecodeGraphs::capture(int64_t batch_size, uint64_t generation,
                           const std::function<void()>& step) {
  TIDAL_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  try {
    step();
  } catch (...) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream_, &partial);  // ends the capture; the step's error wins
    if (partial != nullptr) cudaGraphDestroy(partial);
    throw;
  }
  cudaGraph_t graph = nullptr;
  TIDAL_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t status = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  TIDAL_CUDA_CHECK(status);
  auto it = graphs_.find(batch_size);
  if (it != graphs_.end()) {
    cudaGraphExecDestroy(it->second.exec);
    graphs_.erase(it);
  }
  graphs_.emplace(batch_size, Entry{exec, generation});
}

bool DecodeGraphs::has(int64_t batch_size, uint64_t generation) const {
  const auto it = graphs_.find(batch_size);
  return it != graphs_.end() && it->second.generation == generation;
}

void DecodeGraphs::replay(int64_t batch_size) {
  const auto it = graphs_.find(batch_size);
  if (it == graphs_.end()) {
    throw std::out_of_range("decode graphs: none captured for batch size " +
                            std::to_string(batch_size));
  }
  TIDAL_CUDA_CHECK(cudaGraphLaunch(it->second.exec, stream_));
}

}  // namespace tidal::kernels::cuda
