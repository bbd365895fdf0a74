// Shared by the kernel development programs: seeded inputs, event timing, error measure.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/cuda/cuda_check.h"

namespace tidal::kernels::dev {

// Magnitudes in [0.05, 1) with random signs: never zero.
inline std::vector<float> random_values(std::mt19937_64& rng, int64_t count) {
  std::vector<float> values(count);
  for (float& v : values) {
    const double magnitude = 0.05 + 0.95 * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
    v = static_cast<float>((rng() & 1) ? magnitude : -magnitude);
  }
  return values;
}

// max |a - b| / max |b|
inline double relative_error(const std::vector<float>& actual, const std::vector<float>& expected) {
  double diff = 0.0;
  double scale = 0.0;
  for (size_t i = 0; i < expected.size(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(actual[i]) - expected[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(expected[i])));
  }
  return diff / std::max(scale, 1e-30);
}

// Mean milliseconds of `launch` over `iterations` runs on `stream`, after two warm-up runs.
template <typename Launch>
double time_ms(cudaStream_t stream, int iterations, Launch&& launch) {
  for (int i = 0; i < 2; ++i) launch();
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  TIDAL_CUDA_CHECK(cudaEventCreate(&start));
  TIDAL_CUDA_CHECK(cudaEventCreate(&stop));
  TIDAL_CUDA_CHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < iterations; ++i) launch();
  TIDAL_CUDA_CHECK(cudaEventRecord(stop, stream));
  TIDAL_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  TIDAL_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return static_cast<double>(ms) / iterations;
}

}  // namespace tidal::kernels::dev
