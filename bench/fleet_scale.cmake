# Ten thousand replicas: one hour on 20 pools x 500 Llama-3-8B replicas, and the heap bytes of
# one idle replica (bench/fleet_scale.cpp prints two JSON lines).
tidal_bench(fleet_scale SOURCES ${CMAKE_CURRENT_LIST_DIR}/fleet_scale.cpp DEPS tidal_sim)
