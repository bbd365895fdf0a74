# CPU kernel speed: memory bandwidth measured in the same run, GEMV GB/s (fp32, int8, fp8) for a
# 4096x4096 weight against it, GEMM GFLOP/s, paged-attention decode (bench/engine_cpu_kernels.cpp).
tidal_bench(engine_cpu_kernels SOURCES ${CMAKE_CURRENT_LIST_DIR}/engine_cpu_kernels.cpp
            DEPS tidal_kernels)
