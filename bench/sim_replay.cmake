# Simulator speed: the Azure 2023 conv trace (one hour) on 8 Llama-3-8B replicas on H100 with
# continuous batching (bench/sim_replay.cpp prints JSON lines).
tidal_bench(sim_replay SOURCES ${CMAKE_CURRENT_LIST_DIR}/sim_replay.cpp DEPS tidal_sim)
