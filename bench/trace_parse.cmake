# Trace parsing speed: real Azure CSV and Mooncake JSONL, and a large generated CSV.
tidal_bench(trace_parse SOURCES ${CMAKE_CURRENT_LIST_DIR}/trace_parse.cpp DEPS tidal_traces)
