// Decode graphs: padding to capture batch sizes, and a captured step replayed on new inputs
// gives what running the kernels directly gives.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/cuda/decode_graphs.h"
#include "tests/cuda/cuda_test_util.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels::cuda {
namespace {

using testing::to_device;
using testing::to_host;

TEST(DecodeGraphSizes, SmallestCaptureSizeAtLeastTheBatch) {
  const std::vector<int64_t> sizes = default_decode_batch_sizes();
  EXPECT_EQ(sizes.front(), 1);
  EXPECT_EQ(sizes.back(), 256);
  EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
  EXPECT_EQ(padded_batch_size(sizes, 1), 1);
  EXPECT_EQ(padded_batch_size(sizes, 3), 4);
  EXPECT_EQ(padded_batch_size(sizes, 9), 16);
  EXPECT_EQ(padded_batch_size(sizes, 65), 80);
  EXPECT_EQ(padded_batch_size(sizes, 200), 224);
  EXPECT_EQ(padded_batch_size(sizes, 256), 256);
  EXPECT_EQ(padded_batch_size(sizes, 257), -1);
}

TEST(DecodeGraphs, ReplayMatchesDirectLaunchOnNewInputs) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  CudaBackend backend(0);
  std::mt19937_64 rng(5);
  const int64_t rows = 8, dim = 512;
  const auto weight = kernels::testing::random_values(rng, dim);
  auto d_weight = to_device(weight);
  DeviceBuffer<float> d_x(rows * dim);
  DeviceBuffer<float> d_residual(rows * dim);
  DeviceBuffer<float> d_out(rows * dim);
  const auto step = [&] {
    backend.add_rms_norm(d_residual.data(), d_x.data(), d_weight.data(), rows, dim, 1e-5f,
                         d_out.data());
    backend.swiglu(d_out.data(), d_x.data(), rows * dim, d_out.data());
  };
  DecodeGraphs graphs(backend.stream());
  graphs.capture(rows, backend.scratch_generation(), step);
  EXPECT_TRUE(graphs.has(rows, backend.scratch_generation()));
  EXPECT_FALSE(graphs.has(rows, backend.scratch_generation() + 1));
  for (int round = 0; round < 2; ++round) {
    const auto x = kernels::testing::random_values(rng, rows * dim);
    const auto residual = kernels::testing::random_values(rng, rows * dim);
    d_x.copy_from_host(x.data(), x.size());
    d_residual.copy_from_host(residual.data(), residual.size());
    step();
    const auto direct = to_host(backend, d_out);
    d_residual.copy_from_host(residual.data(), residual.size());
    graphs.replay(rows);
    EXPECT_EQ(to_host(backend, d_out), direct);
  }
  EXPECT_THROW(graphs.replay(rows + 1), std::out_of_range);
}

}  // namespace
}  // namespace tidal::kernels::cuda
