#include "kernels/cpu/vector_ops.h"

#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TIDAL_MULTIVERSION \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TIDAL_MULTIVERSION
#endif

namespace tidal::kernels::cpu {

namespace {

constexpr int kLanes = 16;

float reduce_lanes(const float* lanes) {
  float pairs[kLanes / 2];
  for (int i = 0; i < kLanes / 2; ++i) pairs[i] = lanes[i] + lanes[i + kLanes / 2];
  float quads[kLanes / 4];
  for (int i = 0; i < kLanes / 4; ++i) quads[i] = pairs[i] + pairs[i + kLanes / 4];
  return (quads[0] + quads[2]) + (quads[1] + quads[3]);
}

}  // namespace

TIDAL_MULTIVERSION float dot(const float* a, const float* b, int64_t count) {
  float lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[l] += a[i + l] * b[i + l];
  }
  float sum = reduce_lanes(lanes);
  for (; i < count; ++i) sum += a[i] * b[i];
  return sum;
}

TIDAL_MULTIVERSION float dot_int8(const float* x, const int8_t* codes, int64_t count) {
  float lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[l] += x[i + l] * static_cast<float>(codes[i + l]);
  }
  float sum = reduce_lanes(lanes);
  for (; i < count; ++i) sum += x[i] * static_cast<float>(codes[i]);
  return sum;
}

TIDAL_MULTIVERSION float sum_squares(const float* x, int64_t count) {
  float lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lanes[l] += x[i + l] * x[i + l];
  }
  float sum = reduce_lanes(lanes);
  for (; i < count; ++i) sum += x[i] * x[i];
  return sum;
}

TIDAL_MULTIVERSION void axpy(float* y, float alpha, const float* x, int64_t count) {
  for (int64_t i = 0; i < count; ++i) y[i] += alpha * x[i];
}

TIDAL_MULTIVERSION void dequantize_int8(const int8_t* codes, float scale, int64_t count,
                                        float* out) {
  for (int64_t i = 0; i < count; ++i) out[i] = static_cast<float>(codes[i]) * scale;
}

TIDAL_MULTIVERSION void bf16_to_float_row(const uint16_t* bits, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i) {
    const uint32_t widened = static_cast<uint32_t>(bits[i]) << 16;
    std::memcpy(out + i, &widened, sizeof(float));
  }
}

}  // namespace tidal::kernels::cpu
