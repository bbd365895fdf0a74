# GPU benchmark (CUDA builds only): device-to-device copy bandwidth, cuBLAS bf16 GEMM rate, and
# an 8B-class random model (Llama-3-8B shapes) on the CUDA backend: batch-1 decode (bf16 and
# int8) against weight bytes / bandwidth, 4,096-token prefill against the GEMM rate, and a
# decode step-time table over batch x context (bench/gpu_decode.cpp; the model in
# bench/gpu_synthetic_model.h). Run by scripts/gpu-check.sh.
if(TARGET tidal_kernels_cuda)
  tidal_bench(gpu_decode SOURCES ${CMAKE_CURRENT_LIST_DIR}/gpu_decode.cpp
              DEPS tidal_kernels_cuda tidal_kernels)
endif()
