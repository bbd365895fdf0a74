// Memory where a backend computes: what the forward pass allocates its activations, batch arrays
// and (uploaded) weights from, and how bytes move between it and the host. The CPU backends use
// host memory (HostMemory: aligned allocations, memcpy); the CUDA backend uses cudaMalloc and
// copies on its stream. Copies into backend memory and fills are ordered with the backend's
// later work; copy_to_host waits for the backend's earlier work.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tidal::kernels {

class BackendMemory {
 public:
  virtual ~BackendMemory() = default;
  // true: pointers from allocate() are host memory the CPU may read and write.
  virtual bool is_host() const = 0;
  // `bytes` (> 0) of uninitialized memory, 64-byte aligned; std::bad_alloc (or the backend's
  // error) when it cannot be had.
  virtual void* allocate(size_t bytes) = 0;
  virtual void deallocate(void* ptr) noexcept = 0;
  // dst (backend) <- src (host). `src` must stay unchanged until the backend's next
  // synchronizing call (copy_to_host or synchronize()).
  virtual void copy_from_host(void* dst, const void* src, size_t bytes) = 0;
  // dst (host) <- src (backend), after every earlier call on the backend has finished.
  virtual void copy_to_host(void* dst, const void* src, size_t bytes) = 0;
  // dst <- src, both backend memory (regions must not overlap).
  virtual void copy(void* dst, const void* src, size_t bytes) = 0;
  virtual void fill_zero(void* dst, size_t bytes) = 0;
  // Waits until every earlier call on the backend has finished.
  virtual void synchronize() = 0;
};

// Host memory (the CPU backends'): aligned_alloc and memcpy, all synchronous.
class HostMemory final : public BackendMemory {
 public:
  bool is_host() const override { return true; }
  void* allocate(size_t bytes) override;
  void deallocate(void* ptr) noexcept override;
  void copy_from_host(void* dst, const void* src, size_t bytes) override;
  void copy_to_host(void* dst, const void* src, size_t bytes) override;
  void copy(void* dst, const void* src, size_t bytes) override;
  void fill_zero(void* dst, size_t bytes) override;
  void synchronize() override {}
};

// The process-wide HostMemory.
BackendMemory& host_memory();

// A grow-only buffer in a backend's memory (a workspace slot reused across forward steps).
class BackendBuffer {
 public:
  explicit BackendBuffer(BackendMemory& memory) : memory_(&memory) {}
  BackendBuffer(BackendMemory& memory, size_t bytes);
  ~BackendBuffer() { release(); }
  BackendBuffer(const BackendBuffer&) = delete;
  BackendBuffer& operator=(const BackendBuffer&) = delete;
  BackendBuffer(BackendBuffer&& other) noexcept;
  BackendBuffer& operator=(BackendBuffer&& other) noexcept;

  // Makes the buffer hold at least `bytes` (contents are not kept when it grows).
  void reserve(size_t bytes);
  // reserve(count * sizeof(T)) and the memory as T*.
  template <typename T>
  T* as(size_t count) {
    reserve(count * sizeof(T));
    return static_cast<T*>(data_);
  }
  // Copies `count` host values in (reserving room) and returns the backend pointer.
  template <typename T>
  const T* upload(const T* host, size_t count) {
    T* dst = as<T>(count);
    if (count > 0) memory_->copy_from_host(dst, host, count * sizeof(T));
    return dst;
  }
  void* data() const { return data_; }
  size_t capacity() const { return capacity_; }

 private:
  void release() noexcept;
  BackendMemory* memory_;
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace tidal::kernels
