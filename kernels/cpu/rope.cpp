#include "kernels/cpu/rope.h"

#include <cmath>
#include <vector>

namespace tidal::kernels {

namespace {

// The rotation angle of frequency i at `position`, in fp32 like Hugging Face.
float rope_angle(int32_t position, float inv_freq) {
  return static_cast<float>(position) * inv_freq;
}

void rotate_head(float* head, int64_t half, const float* cos_values, const float* sin_values) {
  for (int64_t i = 0; i < half; ++i) {
    const float x0 = head[i];
    const float x1 = head[i + half];
    head[i] = x0 * cos_values[i] - x1 * sin_values[i];
    head[i + half] = x1 * cos_values[i] + x0 * sin_values[i];
  }
}

}  // namespace

namespace reference {

void rope(float* q, float* k, const int32_t* positions, int64_t num_tokens, int64_t num_heads,
          int64_t num_kv_heads, int64_t head_dim, const float* inv_freq) {
  const int64_t half = head_dim / 2;
  for (int64_t t = 0; t < num_tokens; ++t) {
    for (int64_t h = 0; h < num_heads + num_kv_heads; ++h) {
      float* head = h < num_heads ? q + (t * num_heads + h) * head_dim
                                  : k + (t * num_kv_heads + (h - num_heads)) * head_dim;
      for (int64_t i = 0; i < half; ++i) {
        const float angle = rope_angle(positions[t], inv_freq[i]);
        const float c = std::cos(angle);
        const float s = std::sin(angle);
        const float x0 = head[i];
        const float x1 = head[i + half];
        head[i] = x0 * c - x1 * s;
        head[i + half] = x1 * c + x0 * s;
      }
    }
  }
}

}  // namespace reference

namespace cpu {

void rope(ThreadPool& pool, float* q, float* k, const int32_t* positions, int64_t num_tokens,
          int64_t num_heads, int64_t num_kv_heads, int64_t head_dim, const float* inv_freq) {
  const int64_t half = head_dim / 2;
  pool.parallel_for(num_tokens, 4, [&](int64_t begin, int64_t end) {
    std::vector<float> cos_values(half);  // [head_dim / 2]
    std::vector<float> sin_values(half);  // [head_dim / 2]
    for (int64_t t = begin; t < end; ++t) {
      // One cos/sin per frequency, shared by every head of the token.
      for (int64_t i = 0; i < half; ++i) {
        const float angle = rope_angle(positions[t], inv_freq[i]);
        cos_values[i] = std::cos(angle);
        sin_values[i] = std::sin(angle);
      }
      for (int64_t h = 0; h < num_heads; ++h) {
        rotate_head(q + (t * num_heads + h) * head_dim, half, cos_values.data(), sin_values.data());
      }
      for (int64_t h = 0; h < num_kv_heads; ++h) {
        rotate_head(k + (t * num_kv_heads + h) * head_dim, half, cos_values.data(),
                    sin_values.data());
      }
    }
  });
}

}  // namespace cpu

}  // namespace tidal::kernels
