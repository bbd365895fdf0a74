// Where a kernel's fp32 results go: fp32 activations, or half activations rounded to nearest even
// (bf16 as float_to_bf16, fp16 as float_to_fp16) for a GEMM that reads them without a conversion
// kernel. Passed by value to kernels templated on the store (device code only).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace tidal::kernels::cuda {

struct StoreF32 {
  float* out;
  __device__ void operator()(int64_t i, float value) const { out[i] = value; }
};

struct StoreHalf {
  uint16_t* out;
  bool bf16;
  __device__ void operator()(int64_t i, float value) const {
    out[i] = bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(value))
                  : __half_as_ushort(__float2half_rn(value));
  }
};

}  // namespace tidal::kernels::cuda
