#include "kernels/backend_memory.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace tidal::kernels {

namespace {
constexpr size_t kAlignment = 64;
}  // namespace

void* HostMemory::allocate(size_t bytes) {
  // aligned_alloc needs a multiple of the alignment.
  void* ptr = std::aligned_alloc(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
  if (ptr == nullptr) throw std::bad_alloc();
  return ptr;
}

void HostMemory::deallocate(void* ptr) noexcept {
  std::free(ptr);
}

void HostMemory::copy_from_host(void* dst, const void* src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}

void HostMemory::copy_to_host(void* dst, const void* src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}

void HostMemory::copy(void* dst, const void* src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}

void HostMemory::fill_zero(void* dst, size_t bytes) {
  std::memset(dst, 0, bytes);
}

BackendMemory& host_memory() {
  static HostMemory memory;
  return memory;
}

BackendBuffer::BackendBuffer(BackendMemory& memory, size_t bytes) : memory_(&memory) {
  reserve(bytes);
}

BackendBuffer::BackendBuffer(BackendBuffer&& other) noexcept
    : memory_(other.memory_),
      data_(std::exchange(other.data_, nullptr)),
      capacity_(std::exchange(other.capacity_, 0)) {}

BackendBuffer& BackendBuffer::operator=(BackendBuffer&& other) noexcept {
  if (this != &other) {
    release();
    memory_ = other.memory_;
    data_ = std::exchange(other.data_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

void BackendBuffer::reserve(size_t bytes) {
  if (bytes <= capacity_) return;
  void* grown = memory_->allocate(bytes);
  release();
  data_ = grown;
  capacity_ = bytes;
}

void BackendBuffer::release() noexcept {
  if (data_ != nullptr) memory_->deallocate(data_);
  data_ = nullptr;
  capacity_ = 0;
}

}  // namespace tidal::kernels
