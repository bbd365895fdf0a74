# Vidur-imported H100 profile vs roofline for Llama-2-70B at TP 4 and 8, and step_seconds() cost.
tidal_bench(perf_import SOURCES ${CMAKE_CURRENT_LIST_DIR}/perf_import.cpp DEPS tidal_perf)
