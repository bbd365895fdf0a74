// Inner loops on 16-float vectors (GCC/Clang vector extensions): one register on AVX-512, two
// on AVX2, four on SSE2. Each output keeps 16 lane sums, reduced in a fixed order, then a
// scalar tail; kernels/CMakeLists.txt turns off FMA contraction, so every machine and every
// clone computes the same bits.
#include "kernels/cpu/vector_ops.h"

#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TIDAL_MULTIVERSION \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TIDAL_MULTIVERSION
#endif
// Helpers are always inlined so they are compiled for the instruction set of their caller's
// clone (an out-of-line copy would be baseline code).
#define TIDAL_INLINE inline __attribute__((always_inline))

namespace tidal::kernels::cpu {

namespace {

constexpr int kLanes = 16;
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));
typedef int32_t Int32s __attribute__((vector_size(kLanes * sizeof(int32_t))));
typedef int16_t Int16s __attribute__((vector_size(kLanes * sizeof(int16_t))));
typedef int8_t Int8s __attribute__((vector_size(kLanes)));

// Helpers take vectors by reference: passing them by value would depend on the clone's ABI.
TIDAL_INLINE void load(Vec& v, const float* p) {
  std::memcpy(&v, p, sizeof(v));
}

// 16 int8 codes widened to float in two steps (int8 -> int16 -> int32): GCC turns each step
// into sign-extending moves, where a direct int8 -> float conversion becomes scalar code.
TIDAL_INLINE void load_int8(Vec& v, const int8_t* p) {
  Int8s codes;
  std::memcpy(&codes, p, sizeof(codes));
  v = __builtin_convertvector(
      __builtin_convertvector(__builtin_convertvector(codes, Int16s), Int32s), Vec);
}

TIDAL_INLINE float reduce(const Vec& v) {
  float lanes[kLanes];
  std::memcpy(lanes, &v, sizeof(v));
  float pairs[kLanes / 2];
  for (int i = 0; i < kLanes / 2; ++i) pairs[i] = lanes[i] + lanes[i + kLanes / 2];
  float quads[kLanes / 4];
  for (int i = 0; i < kLanes / 4; ++i) quads[i] = pairs[i] + pairs[i + kLanes / 4];
  return (quads[0] + quads[2]) + (quads[1] + quads[3]);
}

// One tile of kTokens x kRows outputs, each accumulated exactly as dot() does.
template <int kTokens, int kRows>
TIDAL_INLINE void dot_tile(const float* x, const float* w, int64_t cols, float* y,
                           int64_t y_stride) {
  Vec acc[kTokens][kRows] = {};
  int64_t i = 0;
  for (; i + kLanes <= cols; i += kLanes) {
    Vec wv[kRows];
    for (int r = 0; r < kRows; ++r) load(wv[r], w + r * cols + i);
    for (int t = 0; t < kTokens; ++t) {
      Vec xv;
      load(xv, x + t * cols + i);
      for (int r = 0; r < kRows; ++r) acc[t][r] += xv * wv[r];
    }
  }
  for (int t = 0; t < kTokens; ++t) {
    for (int r = 0; r < kRows; ++r) {
      float sum = reduce(acc[t][r]);
      for (int64_t j = i; j < cols; ++j) sum += x[t * cols + j] * w[r * cols + j];
      y[t * y_stride + r] = sum;
    }
  }
}

// kTokens x kRows outputs of int8 rows with group scales: per group a dot as dot() computes it
// (codes converted to float exactly), then total += scale * group dot in group order.
template <int kTokens, int kRows>
TIDAL_INLINE void dot_int8_tile(const float* x, const int8_t* codes, const float* scales,
                                int64_t cols, int64_t group_size, float* y, int64_t y_stride) {
  const int64_t num_groups = cols / group_size;
  float total[kTokens][kRows] = {};
  for (int64_t g = 0; g < num_groups; ++g) {
    const int64_t start = g * group_size;
    const int64_t end = start + group_size;
    Vec acc[kTokens][kRows] = {};
    int64_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      Vec wv[kRows];
      for (int r = 0; r < kRows; ++r) load_int8(wv[r], codes + r * cols + i);
      for (int t = 0; t < kTokens; ++t) {
        Vec xv;
        load(xv, x + t * cols + i);
        for (int r = 0; r < kRows; ++r) acc[t][r] += xv * wv[r];
      }
    }
    for (int t = 0; t < kTokens; ++t) {
      for (int r = 0; r < kRows; ++r) {
        float sum = reduce(acc[t][r]);
        for (int64_t j = i; j < end; ++j) {
          sum += x[t * cols + j] * static_cast<float>(codes[r * cols + j]);
        }
        total[t][r] += scales[r * num_groups + g] * sum;
      }
    }
  }
  for (int t = 0; t < kTokens; ++t) {
    for (int r = 0; r < kRows; ++r) y[t * y_stride + r] = total[t][r];
  }
}

}  // namespace

TIDAL_MULTIVERSION float dot(const float* a, const float* b, int64_t count) {
  Vec acc = {};
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    Vec va, vb;
    load(va, a + i);
    load(vb, b + i);
    acc += va * vb;
  }
  float sum = reduce(acc);
  for (; i < count; ++i) sum += a[i] * b[i];
  return sum;
}

TIDAL_MULTIVERSION void dot_tile_gemm(const float* x, int64_t num_tokens, const float* w,
                                      int64_t num_rows, int64_t cols, float* y, int64_t y_stride) {
  int64_t r = 0;
  for (; r + 4 <= num_rows; r += 4) {
    int64_t t = 0;
    for (; t + 2 <= num_tokens; t += 2) {
      dot_tile<2, 4>(x + t * cols, w + r * cols, cols, y + t * y_stride + r, y_stride);
    }
    if (t < num_tokens) {
      dot_tile<1, 4>(x + t * cols, w + r * cols, cols, y + t * y_stride + r, y_stride);
    }
  }
  for (; r < num_rows; ++r) {
    for (int64_t t = 0; t < num_tokens; ++t) {
      dot_tile<1, 1>(x + t * cols, w + r * cols, cols, y + t * y_stride + r, y_stride);
    }
  }
}

TIDAL_MULTIVERSION void dot_int8_tile_gemm(const float* x, int64_t num_tokens, const int8_t* codes,
                                           const float* scales, int64_t num_rows, int64_t cols,
                                           int64_t group_size, float* y, int64_t y_stride) {
  const int64_t num_groups = cols / group_size;
  int64_t r = 0;
  for (; r + 4 <= num_rows; r += 4) {
    int64_t t = 0;
    for (; t + 2 <= num_tokens; t += 2) {
      dot_int8_tile<2, 4>(x + t * cols, codes + r * cols, scales + r * num_groups, cols, group_size,
                          y + t * y_stride + r, y_stride);
    }
    if (t < num_tokens) {
      dot_int8_tile<1, 4>(x + t * cols, codes + r * cols, scales + r * num_groups, cols, group_size,
                          y + t * y_stride + r, y_stride);
    }
  }
  for (; r < num_rows; ++r) {
    for (int64_t t = 0; t < num_tokens; ++t) {
      dot_int8_tile<1, 1>(x + t * cols, codes + r * cols, scales + r * num_groups, cols, group_size,
                          y + t * y_stride + r, y_stride);
    }
  }
}

TIDAL_MULTIVERSION float sum_squares(const float* x, int64_t count) {
  Vec acc = {};
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    Vec v;
    load(v, x + i);
    acc += v * v;
  }
  float sum = reduce(acc);
  for (; i < count; ++i) sum += x[i] * x[i];
  return sum;
}

TIDAL_MULTIVERSION void weighted_row_sum(float* out, int64_t num_out, const float* weights,
                                         int64_t weight_stride, const float* rows, int64_t num_rows,
                                         int64_t dim) {
  for (int64_t j = 0; j < num_rows; ++j) {
    const float* row = rows + j * dim;
    for (int64_t g = 0; g < num_out; ++g) {
      const float weight = weights[g * weight_stride + j];
      float* out_row = out + g * dim;
      for (int64_t i = 0; i < dim; ++i) out_row[i] += weight * row[i];
    }
  }
}

TIDAL_MULTIVERSION void dequantize_int8(const int8_t* codes, float scale, int64_t count,
                                        float* out) {
  for (int64_t i = 0; i < count; ++i) out[i] = static_cast<float>(codes[i]) * scale;
}

TIDAL_MULTIVERSION void decode_fp8_e4m3(const uint8_t* codes, float scale, int64_t count,
                                        float* out) {
  // Branch-free so it vectorizes: normal codes get exponent and mantissa moved into place and
  // the bias changed from 7 to 127; subnormal codes (exponent field 0) are mantissa * 2^-9;
  // S.1111.111 is NaN. All exact.
  for (int64_t i = 0; i < count; ++i) {
    const uint32_t code = codes[i];
    const uint32_t magnitude = code & 0x7Fu;
    const uint32_t normal_bits = (magnitude << 20) + (120u << 23);
    const float subnormal = static_cast<float>(static_cast<int32_t>(magnitude)) * 0x1p-9f;
    uint32_t subnormal_bits;
    std::memcpy(&subnormal_bits, &subnormal, sizeof(subnormal_bits));
    const uint32_t is_subnormal = 0u - static_cast<uint32_t>(magnitude < 8);
    const uint32_t is_nan = 0u - static_cast<uint32_t>(magnitude == 0x7F);
    uint32_t bits = (subnormal_bits & is_subnormal) | (normal_bits & ~is_subnormal);
    bits = (0x7FC00000u & is_nan) | (bits & ~is_nan);
    bits |= (code & 0x80u) << 24;
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    out[i] = value * scale;
  }
}

TIDAL_MULTIVERSION void bf16_to_float_row(const uint16_t* bits, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i) {
    const uint32_t widened = static_cast<uint32_t>(bits[i]) << 16;
    std::memcpy(out + i, &widened, sizeof(float));
  }
}

}  // namespace tidal::kernels::cpu
