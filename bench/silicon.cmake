# tidal against measured end-to-end runs of vLLM, SGLang and TensorRT-LLM: per group, the mean
# and median absolute percentage errors of mean TTFT and TPOT for the roofline, kernel_db with
# engine presets, and that plus a calibration fitted without the group's model.
tidal_bench(silicon SOURCES ${CMAKE_CURRENT_LIST_DIR}/silicon.cpp DEPS tidal_validate)
