# A week of a multi-tenant fleet: a generated 7-day diurnal + bursty trace of > 10 million
# requests on an autoscaled on-demand pool and an autoscaled spot pool (bench/fleet_week.cpp
# prints a JSON line).
tidal_bench(fleet_week SOURCES ${CMAKE_CURRENT_LIST_DIR}/fleet_week.cpp DEPS tidal_sim)
