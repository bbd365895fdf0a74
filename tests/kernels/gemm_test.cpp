// Linear layers y = x W^T. Relative error bounds (max |diff| / max |expected|):
//   optimized vs reference, same weights (f32, int8, fp8):   1e-5 (summation order only)
// Quantized vs the fp32 product, measured per output as |diff| / (|x_t| |w_r|) (the
// Cauchy-Schwarz scale of a dot product, so outputs near zero do not inflate it):
//   int8 per-channel / per-group: 1e-2 (half a step of absmax/127 per weight)
//   fp8 e4m3 per-channel:         6.5e-2 (3 mantissa bits: 1/16 relative per weight)
// bf16 / fp16 weights: exactly the fp32 linear of the rounded weights (same path).
// Both GEMM paths (batch-invariant dot tiles, Eigen) over shapes covering few and many tokens.
// The batch-invariant path must give each token the same bits alone as in any batch.
#include <cmath>

#include <gtest/gtest.h>

#include "kernels/cpu/gemm.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

constexpr double kSameWeightsTolerance = 1e-5;
constexpr double kInt8Tolerance = 1e-2;
constexpr double kFp8Tolerance = 6.5e-2;

struct Shape {
  int64_t num_tokens;
  int64_t rows;
  int64_t cols;
};

std::vector<Shape> random_shapes(std::mt19937_64& rng, int64_t col_multiple) {
  std::vector<Shape> shapes = {{1, 1, col_multiple}, {4, 130, 2 * col_multiple}};
  for (int i = 0; i < 8; ++i) {
    shapes.push_back({testing::uniform_int(rng, 1, i % 2 == 0 ? 4 : 40),
                      testing::uniform_int(rng, 1, 300),
                      col_multiple * testing::uniform_int(rng, 1, 600 / col_multiple)});
  }
  return shapes;
}

double norm_scaled_error(const std::vector<float>& actual, const std::vector<float>& expected,
                         const std::vector<float>& x, const std::vector<float>& w, const Shape& s) {
  const auto norm = [&](const std::vector<float>& m, int64_t row) {
    double sum = 0.0;
    for (int64_t c = 0; c < s.cols; ++c)
      sum += static_cast<double>(m[row * s.cols + c]) * m[row * s.cols + c];
    return std::sqrt(sum);
  };
  double worst = 0.0;
  for (int64_t t = 0; t < s.num_tokens; ++t) {
    for (int64_t r = 0; r < s.rows; ++r) {
      const double diff =
          std::fabs(static_cast<double>(actual[t * s.rows + r]) - expected[t * s.rows + r]);
      worst = std::max(worst, diff / (norm(x, t) * norm(w, r)));
    }
  }
  return worst;
}

std::vector<float> run_reference(const std::vector<float>& x, const Shape& s, const LinearView& w) {
  std::vector<float> y(s.num_tokens * s.rows);
  reference::linear(x.data(), s.num_tokens, w, y.data());
  return y;
}

std::vector<float> run_optimized(ThreadPool& pool, const std::vector<float>& x, const Shape& s,
                                 const LinearView& w, cpu::GemmPath path) {
  std::vector<float> y(s.num_tokens * s.rows);
  cpu::linear(pool, x.data(), s.num_tokens, w, y.data(), path);
  return y;
}

constexpr cpu::GemmPath kPaths[] = {cpu::GemmPath::batch_invariant, cpu::GemmPath::eigen};

TEST(Gemm, F32OptimizedMatchesReference) {
  std::mt19937_64 rng(71);
  ThreadPool pool(3);
  for (const Shape& s : random_shapes(rng, 1)) {
    const std::vector<float> x = testing::random_values(rng, s.num_tokens * s.cols);
    const LinearWeight w =
        make_f32_linear(testing::random_values(rng, s.rows * s.cols), s.rows, s.cols);
    for (cpu::GemmPath path : kPaths) {
      EXPECT_LT(testing::relative_error(run_optimized(pool, x, s, w.view(), path),
                                        run_reference(x, s, w.view())),
                kSameWeightsTolerance)
          << cpu::gemm_path_name(path) << " " << s.num_tokens << "x" << s.rows << "x" << s.cols;
    }
  }
}

TEST(Gemm, Int8OptimizedMatchesReferenceAndFp32) {
  std::mt19937_64 rng(72);
  ThreadPool pool(3);
  for (int64_t group : {0, 32, 64, 128}) {
    for (const Shape& s : random_shapes(rng, group == 0 ? 1 : group)) {
      const std::vector<float> x = testing::random_values(rng, s.num_tokens * s.cols);
      const std::vector<float> values = testing::random_values(rng, s.rows * s.cols);
      const LinearWeight f32 = make_f32_linear(values, s.rows, s.cols);
      const LinearWeight q = quantize_int8(values.data(), s.rows, s.cols, group);
      const std::vector<float> expected = run_reference(x, s, q.view());
      for (cpu::GemmPath path : kPaths) {
        EXPECT_LT(testing::relative_error(run_optimized(pool, x, s, q.view(), path), expected),
                  kSameWeightsTolerance)
            << cpu::gemm_path_name(path) << " group " << group << " " << s.num_tokens << "x"
            << s.rows << "x" << s.cols;
      }
      EXPECT_LT(norm_scaled_error(expected, run_reference(x, s, f32.view()), x, values, s),
                kInt8Tolerance);
    }
  }
}

TEST(Gemm, Fp8OptimizedMatchesReferenceAndFp32) {
  std::mt19937_64 rng(73);
  ThreadPool pool(2);
  for (const Shape& s : random_shapes(rng, 1)) {
    const std::vector<float> x = testing::random_values(rng, s.num_tokens * s.cols);
    const std::vector<float> values = testing::random_values(rng, s.rows * s.cols);
    const LinearWeight q = quantize_fp8_e4m3(values.data(), s.rows, s.cols);
    const std::vector<float> expected = run_reference(x, s, q.view());
    for (cpu::GemmPath path : kPaths) {
      EXPECT_LT(testing::relative_error(run_optimized(pool, x, s, q.view(), path), expected),
                kSameWeightsTolerance)
          << cpu::gemm_path_name(path);
    }
    if (s.cols >= 32) {
      const LinearWeight f32 = make_f32_linear(values, s.rows, s.cols);
      EXPECT_LT(testing::relative_error(expected, run_reference(x, s, f32.view())), kFp8Tolerance);
    }
  }
}

// bf16 / fp16 weights are widened in registers: exactly (bit for bit) the fp32 linear of the
// same path on the rounded weights, and within 1e-5 of the reference on the same weights.
TEST(Gemm, HalfWeightsEqualFp32OnTheRoundedWeights) {
  std::mt19937_64 rng(74);
  ThreadPool pool(3);
  for (WeightFormat format : {WeightFormat::bf16, WeightFormat::fp16}) {
    for (const Shape& s : random_shapes(rng, 1)) {
      const std::vector<float> x = testing::random_values(rng, s.num_tokens * s.cols);
      const std::vector<float> values = testing::random_values(rng, s.rows * s.cols);
      const LinearWeight half = convert_to_half(values.data(), s.rows, s.cols, format);
      const LinearWeight rounded = make_f32_linear(dequantize(half.view()), s.rows, s.cols);
      for (cpu::GemmPath path : kPaths) {
        EXPECT_EQ(run_optimized(pool, x, s, half.view(), path),
                  run_optimized(pool, x, s, rounded.view(), path))
            << weight_format_name(format) << " " << cpu::gemm_path_name(path) << " " << s.num_tokens
            << "x" << s.rows << "x" << s.cols;
      }
      EXPECT_LT(testing::relative_error(
                    run_optimized(pool, x, s, half.view(), cpu::GemmPath::batch_invariant),
                    run_reference(x, s, half.view())),
                kSameWeightsTolerance);
    }
  }
}

TEST(Gemm, SameBytesAtEveryThreadCount) {
  std::mt19937_64 rng(74);
  ThreadPool pool1(1);
  ThreadPool pool3(3);
  for (int64_t num_tokens : {1, 3, 9}) {
    const Shape s{num_tokens, 257, 384};
    const std::vector<float> x = testing::random_values(rng, s.num_tokens * s.cols);
    const std::vector<float> values = testing::random_values(rng, s.rows * s.cols);
    const LinearWeight q8 = quantize_int8(values.data(), s.rows, s.cols, 128);
    const LinearWeight f8 = quantize_fp8_e4m3(values.data(), s.rows, s.cols);
    const LinearWeight f32 = make_f32_linear(values, s.rows, s.cols);
    for (cpu::GemmPath path : kPaths) {
      for (const LinearWeight* w : {&f32, &q8, &f8}) {
        EXPECT_EQ(run_optimized(pool1, x, s, w->view(), path),
                  run_optimized(pool3, x, s, w->view(), path))
            << cpu::gemm_path_name(path) << " " << weight_format_name(w->format);
      }
    }
  }
}

TEST(Gemm, BatchInvariantPathGivesEachTokenTheSameBitsAsAlone) {
  std::mt19937_64 rng(75);
  ThreadPool pool(3);
  for (int64_t group : {0, 32}) {
    const Shape s{70, 131, 160};
    const std::vector<float> x = testing::random_values(rng, s.num_tokens * s.cols);
    const std::vector<float> values = testing::random_values(rng, s.rows * s.cols);
    const LinearWeight f32 = make_f32_linear(values, s.rows, s.cols);
    const LinearWeight q8 = quantize_int8(values.data(), s.rows, s.cols, group);
    const LinearWeight f8 = quantize_fp8_e4m3(values.data(), s.rows, s.cols);
    for (const LinearWeight* w : {&f32, &q8, &f8}) {
      const std::vector<float> batched =
          run_optimized(pool, x, s, w->view(), cpu::GemmPath::batch_invariant);
      for (int64_t t : {0, 1, 37, 69}) {
        const Shape one{1, s.rows, s.cols};
        const std::vector<float> row(x.begin() + t * s.cols, x.begin() + (t + 1) * s.cols);
        EXPECT_EQ(
            run_optimized(pool, row, one, w->view(), cpu::GemmPath::batch_invariant),
            std::vector<float>(batched.begin() + t * s.rows, batched.begin() + (t + 1) * s.rows))
            << weight_format_name(w->format) << " token " << t;
      }
    }
  }
}

}  // namespace
}  // namespace tidal::kernels
