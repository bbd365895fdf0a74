// Elementwise and row-movement kernels: SwiGLU, add, gather and weighted scatter-add of rows.
#pragma once

#include <cstdint>

#include "kernels/thread_pool.h"

namespace tidal::kernels::reference {
// out = silu(gate) * up = gate / (1 + exp(-gate)) * up
void swiglu(const float* gate, const float* up, int64_t count, float* out);  // all [count]
void add(float* y, const float* x, int64_t count);                           // y += x, [count]
void gather_rows(const float* src,                                           // [num_src_rows, dim]
                 const int32_t* rows,                                        // [num_rows]
                 int64_t num_rows, int64_t dim,
                 float* out);  // [num_rows, dim]
// dst[rows[i], :] += weights[i] * src[i, :] in order of i
void scatter_add_rows(const float* src,      // [num_rows, dim]
                      const int32_t* rows,   // [num_rows]
                      const float* weights,  // [num_rows]
                      int64_t num_rows, int64_t dim,
                      float* dst);  // [num_dst_rows, dim]
}  // namespace tidal::kernels::reference

namespace tidal::kernels::cpu {
void swiglu(ThreadPool& pool, const float* gate, const float* up, int64_t count, float* out);
void add(ThreadPool& pool, float* y, const float* x, int64_t count);
void gather_rows(ThreadPool& pool, const float* src, const int32_t* rows, int64_t num_rows,
                 int64_t dim, float* out);
// Splits over columns, so each dst element still sums its rows in order of i.
void scatter_add_rows(ThreadPool& pool, const float* src, const int32_t* rows, const float* weights,
                      int64_t num_rows, int64_t dim, float* dst);
}  // namespace tidal::kernels::cpu
