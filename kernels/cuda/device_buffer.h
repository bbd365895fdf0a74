// Owning device memory from plain cudaMalloc (no managed memory), with blocking host copies in
// and out (setup and checking, not the hot path).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_check.h"

namespace tidal::kernels::cuda {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    if (count_ > 0) TIDAL_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    copy_from_host(host.data(), host.size());
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

  // Blocking: returns once the data is on the device, so kernels on any stream may read it.
  void copy_from_host(const T* host, size_t count) {
    TIDAL_CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
    TIDAL_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    if (count_ > 0) {
      TIDAL_CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    }
    return host;
  }

 private:
  void release() {
    if (data_ != nullptr) cudaFree(data_);  // errors here cannot be thrown from a destructor
    data_ = nullptr;
  }
  T* data_ = nullptr;
  size_t count_ = 0;
};

}  // namespace tidal::kernels::cuda
