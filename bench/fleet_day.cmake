# A day on an autoscaled fleet: a generated 24-hour diurnal + burst trace of > 2 million
# requests on up to 64 Llama-3-8B replicas (bench/fleet_day.cpp prints a JSON line).
tidal_bench(fleet_day SOURCES ${CMAKE_CURRENT_LIST_DIR}/fleet_day.cpp DEPS tidal_sim)
