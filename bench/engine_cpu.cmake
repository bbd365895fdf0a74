# CPU engine speed on a ~100M-parameter random model (small-100m): decode and prefill step
# times at batch 1/8/32, weight GB/s against a memory bandwidth measured in the same run,
# prefill GFLOP/s (bench/engine_cpu.cpp prints JSON lines).
tidal_bench(engine_cpu SOURCES ${CMAKE_CURRENT_LIST_DIR}/engine_cpu.cpp DEPS tidal_engine)
