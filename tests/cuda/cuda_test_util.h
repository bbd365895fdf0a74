// Shared by the CUDA tests: skipping without a device, host <-> device copies, comparing logits.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

// max |a - b| / max |b| (a size mismatch fails the test).
inline double scaled_max_error(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double diff = 0.0;
  double scale = 0.0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(a[i]) - b[i]));
    scale = std::max(scale, std::abs(static_cast<double>(b[i])));
  }
  return diff / scale;
}

}  // namespace tidal::kernels::cuda::testing
