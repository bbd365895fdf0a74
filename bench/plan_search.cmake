# Capacity-plan search speed on the Azure conversation trace: prints JSON lines (bench/plan_search.cpp).
tidal_bench(bench_plan_search SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/plan_search.cpp DEPS tidal_plan)
