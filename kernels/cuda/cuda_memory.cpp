#include "kernels/cuda/cuda_memory.h"

#include "kernels/cuda/cuda_check.h"

namespace tidal::kernels::cuda {

void* CudaMemory::allocate(size_t bytes) {
  TIDAL_CUDA_CHECK(cudaSetDevice(device_));
  void* ptr = nullptr;
  TIDAL_CUDA_CHECK(cudaMalloc(&ptr, bytes));  // 256-byte aligned
  return ptr;
}

void CudaMemory::deallocate(void* ptr) noexcept {
  // cudaFree waits for the device's work on the memory; a destructor cannot throw.
  if (ptr != nullptr) cudaFree(ptr);
}

void CudaMemory::copy_from_host(void* dst, const void* src, size_t bytes) {
  TIDAL_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_));
}

void CudaMemory::copy_to_host(void* dst, const void* src, size_t bytes) {
  TIDAL_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_));
  TIDAL_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CudaMemory::copy(void* dst, const void* src, size_t bytes) {
  TIDAL_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
}

void CudaMemory::fill_zero(void* dst, size_t bytes) {
  TIDAL_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, stream_));
}

void CudaMemory::synchronize() {
  TIDAL_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

}  // namespace tidal::kernels::cuda
