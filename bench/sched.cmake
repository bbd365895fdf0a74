# Scheduler and block-manager throughput: prints JSON lines (bench/sched.cpp).
tidal_bench(bench_sched SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/sched.cpp DEPS tidal_sched)
