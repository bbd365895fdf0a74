// Inner loops shared by the optimized CPU kernels, written with 16 independent accumulators
// so the compiler vectorizes them; on x86-64 each is compiled for AVX-512, AVX2 and baseline
// and picked at load time (function multiversioning). The accumulation order is the same in
// every version (no FMA contraction in ISO C++ mode), so results do not depend on the machine.
#pragma once

#include <cstdint>

namespace tidal::kernels::cpu {

float dot(const float* a, const float* b, int64_t count);
// sum x[i] * codes[i]
float dot_int8(const float* x, const int8_t* codes, int64_t count);
float sum_squares(const float* x, int64_t count);
// y += alpha * x
void axpy(float* y, float alpha, const float* x, int64_t count);
// out[i] = codes[i] * scale
void dequantize_int8(const int8_t* codes, float scale, int64_t count, float* out);
// out[i] = bf16 bits[i] as float
void bf16_to_float_row(const uint16_t* bits, int64_t count, float* out);

}  // namespace tidal::kernels::cpu
