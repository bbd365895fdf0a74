# Fleet mechanisms: cold-start figures vs published ones, billing-ledger, autoscaler and
# network-graph costs (bench/fleet.cpp prints JSON lines).
tidal_bench(bench_fleet SOURCES ${CMAKE_CURRENT_LIST_DIR}/fleet.cpp DEPS tidal_fleet)
