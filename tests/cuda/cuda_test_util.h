// Shared by the CUDA tests: skipping without a device, host <-> device copies.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/device_buffer.h"

#define TIDAL_SKIP_WITHOUT_CUDA_DEVICE()                                  \
  do {                                                                    \
    if (::tidal::kernels::cuda::device_count() == 0) {                    \
      GTEST_SKIP() << "no CUDA device (cudaGetDeviceCount reports none)"; \
    }                                                                     \
  } while (false)

namespace tidal::kernels::cuda::testing {

// Blocking host-to-device copy of raw bytes.
inline void copy_to_device(void* device, const void* host, size_t bytes) {
  TIDAL_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  TIDAL_CUDA_CHECK(cudaDeviceSynchronize());
}

template <typename T>
DeviceBuffer<T> to_device(const std::vector<T>& host) {
  return DeviceBuffer<T>(host);
}

// Waits for the backend's stream, then copies the buffer back.
template <typename T>
std::vector<T> to_host(CudaBackend& backend, const DeviceBuffer<T>& buffer) {
  backend.synchronize();
  return buffer.to_host();
}

}  // namespace tidal::kernels::cuda::testing
