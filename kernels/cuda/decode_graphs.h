// CUDA graphs for decode steps. A decode step of n sequences runs as the graph captured for the
// smallest capture batch size >= n; the extra rows are padding (slot_mapping -1, which write_kv
// skips and paged attention answers with zeros). A step is captured once per batch size and
// replayed with new contents in the same device buffers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace tidal::kernels::cuda {

// 1, 2, 4, 8, then every 8 up to 64, every 16 up to 128, every 32 up to 256.
std::vector<int64_t> default_decode_batch_sizes();

// The smallest size in `sizes` (ascending) that is >= num_seqs; -1 when num_seqs is larger than
// all of them (run that step without a graph).
int64_t padded_batch_size(const std::vector<int64_t>& sizes, int64_t num_seqs);

class DecodeGraphs {
 public:
  explicit DecodeGraphs(cudaStream_t stream) : stream_(stream) {}
  ~DecodeGraphs();
  DecodeGraphs(const DecodeGraphs&) = delete;
  DecodeGraphs& operator=(const DecodeGraphs&) = delete;

  // Records the kernels `step` launches on the stream as the graph of `batch_size` (replacing
  // an earlier one). `step` must launch only onto that stream, allocate nothing and read its
  // inputs from device buffers whose addresses stay fixed; `generation` tags the scratch
  // generation the graph's addresses belong to (CudaBackend::scratch_generation()).
  void capture(int64_t batch_size, uint64_t generation, const std::function<void()>& step);
  bool has(int64_t batch_size, uint64_t generation) const;
  // Launches the graph of batch_size on the stream (std::out_of_range if none was captured).
  void replay(int64_t batch_size);
  void clear();

 private:
  struct Entry {
    cudaGraphExec_t exec = nullptr;
    uint64_t generation = 0;
  };
  cudaStream_t stream_;
  std::map<int64_t, Entry> graphs_;
};

}  // namespace tidal::kernels::cuda
