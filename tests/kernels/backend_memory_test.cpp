// kernels::HostMemory and BackendBuffer: aligned allocations, copies, fills, grow-only reuse.
#include "kernels/backend_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "kernels/cpu/cpu_backend.h"

namespace tidal::kernels {
namespace {

TEST(HostMemory, AllocatesAlignedHostMemoryAndCopies) {
  BackendMemory& memory = host_memory();
  EXPECT_TRUE(memory.is_host());
  void* ptr = memory.allocate(100);  // not a multiple of the alignment
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u);
  std::vector<uint8_t> in(100);
  std::iota(in.begin(), in.end(), uint8_t{1});
  memory.copy_from_host(ptr, in.data(), in.size());
  std::vector<uint8_t> out(100, 0);
  memory.copy_to_host(out.data(), ptr, out.size());
  EXPECT_EQ(out, in);

  void* other = memory.allocate(100);
  memory.copy(other, ptr, 100);
  memory.fill_zero(ptr, 50);
  memory.synchronize();
  memory.copy_to_host(out.data(), other, out.size());
  EXPECT_EQ(out, in);
  memory.copy_to_host(out.data(), ptr, out.size());
  for (size_t i = 0; i < 50; ++i) EXPECT_EQ(out[i], 0) << i;
  for (size_t i = 50; i < 100; ++i) EXPECT_EQ(out[i], in[i]) << i;
  memory.deallocate(ptr);
  memory.deallocate(other);
}

TEST(HostMemory, CpuBackendsComputeInHostMemory) {
  cpu::CpuBackend backend(1);
  EXPECT_EQ(&backend.memory(), &host_memory());
}

TEST(BackendBuffer, GrowsOnlyAndKeepsItsMemoryForSmallerRequests) {
  BackendBuffer buffer(host_memory());
  EXPECT_EQ(buffer.data(), nullptr);
  EXPECT_EQ(buffer.capacity(), 0u);
  float* first = buffer.as<float>(16);
  EXPECT_NE(first, nullptr);
  EXPECT_EQ(buffer.capacity(), 16 * sizeof(float));
  EXPECT_EQ(buffer.as<float>(8), first);  // smaller: same memory
  EXPECT_EQ(buffer.capacity(), 16 * sizeof(float));
  buffer.as<float>(1000);
  EXPECT_EQ(buffer.capacity(), 1000 * sizeof(float));
}

TEST(BackendBuffer, UploadCopiesHostValues) {
  BackendBuffer buffer(host_memory());
  const std::vector<int64_t> values{5, -1, 7, 1'000'000'000'000};
  const int64_t* uploaded = buffer.upload(values.data(), values.size());
  EXPECT_EQ(std::vector<int64_t>(uploaded, uploaded + values.size()), values);
  EXPECT_EQ(buffer.upload(values.data(), 0), buffer.data());  // nothing to copy
}

TEST(BackendBuffer, MovesOwnership) {
  BackendBuffer a(host_memory(), 256);
  void* data = a.data();
  BackendBuffer b(std::move(a));
  EXPECT_EQ(b.data(), data);
  EXPECT_EQ(b.capacity(), 256u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
  BackendBuffer c(host_memory(), 8);
  c = std::move(b);
  EXPECT_EQ(c.data(), data);
}

}  // namespace
}  // namespace tidal::kernels
