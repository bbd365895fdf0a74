// kernels::BackendMemory on one CUDA device: cudaMalloc / cudaFree, copies and fills enqueued on
// the backend's stream (cudaMemcpyAsync, cudaMemsetAsync), copy_to_host synchronizing that
// stream.
#pragma once

#include <cuda_runtime_api.h>

#include "kernels/backend_memory.h"

namespace tidal::kernels::cuda {

class CudaMemory final : public BackendMemory {
 public:
  // `stream` belongs to a backend on `device` and must outlive this object.
  CudaMemory(int device, cudaStream_t stream) : device_(device), stream_(stream) {}
  bool is_host() const override { return false; }
  void* allocate(size_t bytes) override;
  void deallocate(void* ptr) noexcept override;
  void copy_from_host(void* dst, const void* src, size_t bytes) override;
  void copy_to_host(void* dst, const void* src, size_t bytes) override;
  void copy(void* dst, const void* src, size_t bytes) override;
  void fill_zero(void* dst, size_t bytes) override;
  void synchronize() override;

 private:
  int device_;
  cudaStream_t stream_;
};

}  // namespace tidal::kernels::cuda
