// NCCL tensor parallelism: a row-parallel linear (the O / down projection shape) split over two
// GPUs and all-reduced equals the one-GPU result; one rank reduces to itself.
#include <gtest/gtest.h>

#include <exception>
#include <random>
#include <thread>
#include <vector>

#include "engine/nccl_communicator.h"
#include "kernels/cuda/nccl_group.h"
#include "tests/cuda/cuda_test_util.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels::cuda {
namespace {

using kernels::testing::random_values;
using kernels::testing::relative_error;
using testing::to_device;
using testing::to_host;

// Columns [begin, end) of a row-major [rows, cols] matrix.
std::vector<float> column_slice(const std::vector<float>& m, int64_t rows, int64_t cols,
                                int64_t begin, int64_t end) {
  std::vector<float> out;
  out.reserve(rows * (end - begin));
  for (int64_t r = 0; r < rows; ++r) {
    out.insert(out.end(), m.begin() + r * cols + begin, m.begin() + r * cols + end);
  }
  return out;
}

// y = x W^T on `device`, then all-reduced over the rank: [tokens, rows].
std::vector<float> row_parallel_linear(NcclRank& rank, const std::vector<float>& x,
                                       const std::vector<float>& w, int64_t tokens, int64_t rows,
                                       int64_t cols) {
  TIDAL_CUDA_CHECK(cudaSetDevice(rank.device()));
  CudaBackend backend(rank.device());
  auto d_x = to_device(x);
  auto d_w = to_device(w);
  DeviceBuffer<float> d_y(tokens * rows);
  LinearView view;
  view.rows = rows;
  view.cols = cols;
  view.data = d_w.data();
  backend.linear(d_x.data(), tokens, view, d_y.data());
  engine::NcclCommunicator comm(rank, backend.stream());
  comm.all_reduce_sum(d_y.data(), d_y.size());
  return to_host(backend, d_y);
}

TEST(CudaNccl, OneRankAllReduceIsIdentity) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  auto ranks = NcclRank::init_all({0});
  std::mt19937_64 rng(8);
  const auto x = random_values(rng, 3 * 64);
  const auto w = random_values(rng, 32 * 64);
  const auto y = row_parallel_linear(*ranks[0], x, w, 3, 32, 64);
  EXPECT_EQ(y.size(), 3u * 32u);
  EXPECT_EQ(ranks[0]->world_size(), 1);
}

TEST(CudaNccl, TwoRanksMatchOneRank) {
  if (device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  const int64_t tokens = 5, rows = 256, cols = 512;
  std::mt19937_64 rng(9);
  const auto x = random_values(rng, tokens * cols);
  const auto w = random_values(rng, rows * cols);
  auto single = NcclRank::init_all({0});
  const auto expected = row_parallel_linear(*single[0], x, w, tokens, rows, cols);

  auto ranks = NcclRank::init_all({0, 1});
  std::vector<std::vector<float>> results(2);
  std::vector<std::exception_ptr> errors(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      try {
        const int64_t begin = r * cols / 2;
        const int64_t end = (r + 1) * cols / 2;
        results[r] =
            row_parallel_linear(*ranks[r], column_slice(x, tokens, cols, begin, end),
                                column_slice(w, rows, cols, begin, end), tokens, rows, end - begin);
      } catch (...) {
        errors[r] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  EXPECT_EQ(results[0], results[1]);  // every rank ends with identical bytes
  EXPECT_LT(relative_error(results[0], expected), 1e-5);
}

}  // namespace
}  // namespace tidal::kernels::cuda
