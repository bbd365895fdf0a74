// Linear layers on the CUDA backend against the CPU reference: fp32 (cuBLAS), int8 weight-only
// (both kernel variants, per-channel and grouped scales), bf16/fp16 (GEMV and cuBLAS variants)
// and fp8 e4m3 (cuBLASLt on sm_90; a clear error on older GPUs).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/numeric/bf16.h"
#include "kernels/numeric/fp16.h"
#include "tests/cuda/cuda_test_util.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels::cuda {
namespace {

using kernels::testing::random_values;
using kernels::testing::relative_error;
using testing::to_device;
using testing::to_host;

// A weight's device copies and a LinearView over them.
struct DeviceLinear {
  DeviceBuffer<std::byte> data;
  DeviceBuffer<float> scales;
  LinearView view;
};

DeviceLinear upload(const LinearWeight& weight) {
  DeviceLinear out;
  const LinearView host = weight.view();
  const size_t element = weight.format == WeightFormat::f32 ? sizeof(float) : 1;
  out.data = DeviceBuffer<std::byte>(static_cast<size_t>(weight.rows * weight.cols) * element);
  testing::copy_to_device(out.data.data(), host.data, out.data.bytes());
  out.view = host;
  out.view.data = out.data.data();
  if (!weight.scales.empty()) {
    out.scales = DeviceBuffer<float>(weight.scales);
    out.view.scales = out.scales.data();
  }
  return out;
}

class CudaLinear : public ::testing::Test {
 protected:
  void SetUp() override {
    TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
    backend_ = std::make_unique<CudaBackend>(0);
  }
  // Runs the CUDA and reference linear on random x; returns the relative error.
  double run(const LinearWeight& weight, int64_t num_tokens) {
    const auto x = random_values(rng_, num_tokens * weight.cols);
    std::vector<float> expected(num_tokens * weight.rows);
    reference_.linear(x.data(), num_tokens, weight.view(), expected.data());
    DeviceLinear device = upload(weight);
    auto d_x = to_device(x);
    DeviceBuffer<float> d_y(num_tokens * weight.rows);
    backend_->linear(d_x.data(), num_tokens, device.view, d_y.data());
    return relative_error(to_host(*backend_, d_y), expected);
  }
  std::unique_ptr<CudaBackend> backend_;
  cpu::ReferenceBackend reference_;
  std::mt19937_64 rng_{777};
};

TEST_F(CudaLinear, F32MatchesReference) {
  const auto w = random_values(rng_, 384 * 512);
  const LinearWeight weight = make_f32_linear(w, 384, 512);
  for (const int64_t tokens : {1, 7, 130}) EXPECT_LT(run(weight, tokens), 1e-5) << tokens;
}

TEST_F(CudaLinear, Int8BothVariantsPerChannelAndGroupedMatchReference) {
  const int64_t rows = 320, cols = 1024;
  const auto w = random_values(rng_, rows * cols);
  for (const int64_t group : {0, 128, 64}) {
    const LinearWeight weight = quantize_int8(w.data(), rows, cols, group);
    for (const int variant : {1, 2}) {
      backend_->set_int8_variant(variant);
      for (const int64_t tokens : {1, 3, 8, 9, 70}) {
        EXPECT_LT(run(weight, tokens), 1e-5) << group << " " << variant << " " << tokens;
      }
    }
  }
}

TEST_F(CudaLinear, Int8ScalarPathForOddShapes) {
  const int64_t rows = 37, cols = 72;  // cols not a multiple of 16: the GEMV's scalar loop
  const auto w = random_values(rng_, rows * cols);
  const LinearWeight weight = quantize_int8(w.data(), rows, cols, 24);
  for (const int variant : {1, 2}) {
    backend_->set_int8_variant(variant);
    EXPECT_LT(run(weight, 5), 1e-5) << variant;
  }
}

TEST_F(CudaLinear, HalfWeightsBothVariantsMatchReferenceOnRoundedOperands) {
  // cols 520: the GEMV's 8-wide loads; cols 100: its scalar loop.
  for (const int64_t cols : {520, 100}) {
    const int64_t rows = 256;
    const auto w = random_values(rng_, rows * cols);
    for (const HalfType type : {HalfType::bf16, HalfType::fp16}) {
      std::vector<uint16_t> codes(w.size());
      std::vector<float> w_rounded(w.size());
      for (size_t i = 0; i < w.size(); ++i) {
        codes[i] = type == HalfType::bf16 ? float_to_bf16(w[i]) : float_to_fp16(w[i]);
        w_rounded[i] = type == HalfType::bf16 ? bf16_to_float(codes[i]) : fp16_to_float(codes[i]);
      }
      auto d_codes = to_device(codes);
      for (const int variant : {1, 2}) {
        backend_->set_half_variant(variant);
        for (const int64_t tokens : {1, 11, 40}) {
          const auto x = random_values(rng_, tokens * cols);
          std::vector<float> x_rounded(x.size());
          for (size_t i = 0; i < x.size(); ++i) {
            x_rounded[i] =
                type == HalfType::bf16 ? round_to_bf16(x[i]) : fp16_to_float(float_to_fp16(x[i]));
          }
          std::vector<float> expected(tokens * rows);
          reference_.linear(x_rounded.data(), tokens, make_f32_linear(w_rounded, rows, cols).view(),
                            expected.data());
          auto d_x = to_device(x);
          DeviceBuffer<float> d_y(tokens * rows);
          backend_->linear_half(d_x.data(), tokens,
                                HalfLinearView{type, rows, cols, d_codes.data()}, d_y.data());
          EXPECT_LT(relative_error(to_host(*backend_, d_y), expected), 1e-5)
              << cols << " " << variant << " " << tokens;
        }
      }
    }
  }
}

TEST_F(CudaLinear, Fp8OnSm90WithinActivationQuantizationError) {
  const int64_t rows = 256, cols = 512;
  const auto w = random_values(rng_, rows * cols);
  const LinearWeight weight = quantize_fp8_e4m3(w.data(), rows, cols);
  if (backend_->info().compute_capability < 90) {
    EXPECT_THROW(run(weight, 4), CudaError);
    return;
  }
  // Activations go to e4m3 per tensor (3 mantissa bits, up to 6% per element): a few percent of
  // the output scale; a layout or scale bug would be off by ~100%.
  for (const int64_t tokens : {1, 16, 64}) EXPECT_LT(run(weight, tokens), 0.1) << tokens;
}

}  // namespace
}  // namespace tidal::kernels::cuda
