// Inner loops shared by the optimized CPU kernels, each output with 16 independent lane sums
// so the compiler vectorizes them; on x86-64 each is compiled for AVX-512, AVX2 and baseline
// and picked at load time (function multiversioning). The accumulation order is the same in
// every version (FMA contraction is off for this library), so results do not depend on the
// machine.
#pragma once

#include <cstdint>

namespace tidal::kernels::cpu {

float dot(const float* a, const float* b, int64_t count);
float sum_squares(const float* x, int64_t count);
// y[t * y_stride + r] = dot(x + t * cols, w + r * cols, cols) for t < num_tokens, r < num_rows,
// bit for bit what dot() gives, computed in tiles of 2 tokens x 4 rows for register reuse.
void dot_tile_gemm(const float* x,  // [num_tokens, cols]
                   int64_t num_tokens,
                   const float* w,  // [num_rows, cols]
                   int64_t num_rows, int64_t cols,
                   float* y,  // [num_tokens, y_stride]
                   int64_t y_stride);
// y[t * y_stride + r] = sum over groups g, in order, of scales[r * num_groups + g] times the
// dot product of the token's and the row's group g (each group dot as dot() computes it, with
// the int8 codes converted to float).
void dot_int8_tile_gemm(const float* x,  // [num_tokens, cols]
                        int64_t num_tokens,
                        const int8_t* codes,  // [num_rows, cols]
                        const float* scales,  // [num_rows, cols / group_size]
                        int64_t num_rows, int64_t cols, int64_t group_size,
                        float* y,  // [num_tokens, y_stride]
                        int64_t y_stride);
// out[g, :] += sum over j (in order) of weights[g * weight_stride + j] * rows[j, :], for
// g < num_out: the same bits as axpy(out + g * dim, weight, rows + j * dim, dim) for each j.
void weighted_row_sum(float* out,  // [num_out, dim]
                      int64_t num_out,
                      const float* weights,  // [num_out, weight_stride]
                      int64_t weight_stride,
                      const float* rows,  // [num_rows, dim]
                      int64_t num_rows, int64_t dim);
// out[i] = codes[i] * scale
void dequantize_int8(const int8_t* codes, float scale, int64_t count, float* out);
// out[i] = e4m3 codes[i] as float (exactly fp8_e4m3_to_float) * scale, without a table lookup
void decode_fp8_e4m3(const uint8_t* codes, float scale, int64_t count, float* out);
// out[i] = bf16 bits[i] as float
void bf16_to_float_row(const uint16_t* bits, int64_t count, float* out);

}  // namespace tidal::kernels::cpu
