// Warp and block reductions shared by the kernels of this folder (device code only).
// block_* functions must be called by every thread of the block; they return the result to all.
#pragma once

#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>

namespace tidal::kernels::cuda {

__device__ inline int64_t min_i64(int64_t a, int64_t b) {
  return a < b ? a : b;
}

template <typename T>
__device__ inline T warp_sum(T value) {
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

__device__ inline float warp_max(float value) {
  for (int offset = 16; offset > 0; offset /= 2) {
    value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
  }
  return value;
}

// scratch: at least 32 elements of shared memory, reused after the call returns.
template <typename T>
__device__ inline T block_sum(T value, T* scratch) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int num_warps = (blockDim.x + 31) / 32;
  value = warp_sum(value);
  __syncthreads();  // scratch may still be read by a previous call
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  T total = lane < num_warps ? scratch[lane] : T(0);
  return warp_sum(total);
}

__device__ inline float block_max(float value, float* scratch) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int num_warps = (blockDim.x + 31) / 32;
  value = warp_max(value);
  __syncthreads();
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  const float partial = lane < num_warps ? scratch[lane] : -FLT_MAX;
  return warp_max(partial);
}

// Exclusive prefix sum over the threads of the block, in thread order; scratch: blockDim.x
// elements of shared memory.
template <typename T>
__device__ inline T block_exclusive_scan(T value, T* scratch) {
  __syncthreads();
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const T add = threadIdx.x >= stride ? scratch[threadIdx.x - stride] : T(0);
    __syncthreads();
    scratch[threadIdx.x] += add;
    __syncthreads();
  }
  return scratch[threadIdx.x] - value;
}

}  // namespace tidal::kernels::cuda
