// Weight-only int8 linear: variant 1 (warp-per-row GEMV) and variant 2 (tiled GEMM) against the
// CPU backend, at decode and prefill shapes of Llama-3-8B projections; prints validation,
// GB/s (weight codes + scales + activations) and TFLOP/s.
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/dev/dev_support.h"

using namespace tidal::kernels;

int main(int argc, char** argv) {
  const int only_variant = argc > 1 ? std::atoi(argv[1]) : 0;
  if (cuda::device_count() == 0) {
    std::printf("{\"error\": \"no CUDA device\"}\n");
    return 1;
  }
  cuda::CudaBackend backend(0);
  cpu::CpuBackend reference(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  std::mt19937_64 rng(1);
  struct Shape {
    int64_t rows, cols, group;
  };
  for (const Shape shape :
       {Shape{4096, 4096, 128}, Shape{14336, 4096, 0}, Shape{4096, 14336, 128}}) {
    const auto w = dev::random_values(rng, shape.rows * shape.cols);
    const LinearWeight weight = quantize_int8(w.data(), shape.rows, shape.cols, shape.group);
    cuda::DeviceBuffer<int8_t> d_codes(weight.int8_codes);
    cuda::DeviceBuffer<float> d_scales(weight.scales);
    LinearView view = weight.view();
    view.data = d_codes.data();
    view.scales = d_scales.data();
    for (const int64_t tokens : {1, 4, 16, 128, 1024}) {
      const auto x = dev::random_values(rng, tokens * shape.cols);
      std::vector<float> expected(tokens * shape.rows);
      reference.linear(x.data(), tokens, weight.view(), expected.data());
      cuda::DeviceBuffer<float> d_x(x);
      cuda::DeviceBuffer<float> d_y(tokens * shape.rows);
      for (int variant = 1; variant <= 2; ++variant) {
        if (only_variant != 0 && variant != only_variant) continue;
        backend.set_int8_variant(variant);
        backend.linear(d_x.data(), tokens, view, d_y.data());
        backend.synchronize();
        const double error = dev::relative_error(d_y.to_host(), expected);
        const double ms = dev::time_ms(
            backend.stream(), 20, [&] { backend.linear(d_x.data(), tokens, view, d_y.data()); });
        const double bytes = static_cast<double>(weight.bytes()) +
                             4.0 * static_cast<double>(tokens * (shape.cols + shape.rows));
        const double flops = 2.0 * static_cast<double>(tokens * shape.rows * shape.cols);
        std::printf(
            "{\"kernel\": \"int8_linear\", \"variant\": %d, \"rows\": %lld, \"cols\": %lld, "
            "\"group_size\": %lld, \"tokens\": %lld, \"rel_error\": %.3g, \"valid\": %s, "
            "\"ms\": %.4f, \"gb_per_s\": %.1f, \"tflop_per_s\": %.2f}\n",
            variant, static_cast<long long>(shape.rows), static_cast<long long>(shape.cols),
            static_cast<long long>(weight.group_size), static_cast<long long>(tokens), error,
            error < 1e-4 ? "true" : "false", ms, bytes / ms / 1e6, flops / ms / 1e9);
      }
    }
  }
  return 0;
}
