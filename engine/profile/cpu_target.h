// How the CPU engine's model and deployment are described to perf: the ModelSpec of an
// engine model config, the perf dtypes of its weight and KV formats, and a device description of
// the CPU for the only figures a fully measured profile still needs from one (KV swap copies).
#pragma once

#include <string>

#include "engine/engine_config.h"
#include "kernels/kv_cache.h"
#include "models/config.h"
#include "models/quantize_weights.h"
#include "perf/dtype.h"
#include "perf/gpu_catalog.h"
#include "perf/memory_plan.h"
#include "perf/model_catalog.h"

namespace tidal::profile {

// Dimensions of `config` as a perf ModelSpec named `name`; an MoE model has no dense layers.
perf::ModelSpec model_spec_for(const models::ModelConfig& config, const std::string& name);

perf::DType weight_dtype_for(const models::QuantSpec& quant);  // f32 -> fp32, int8, fp8
perf::DType kv_dtype_for(kernels::KvDType dtype);              // f32 -> fp32, bf16, int8

// tp, dtypes, block size and token budget of an engine config.
perf::Deployment deployment_for(const engine::EngineConfig& config);

// The CPU as a perf "GPU": name = `cpu_name`. Only pcie_Bps is read by a fully measured profile
// (swap_seconds: the engine's swap copies are host memcpys, taken as 8 GB/s, a conservative
// single-core copy rate); the other rates are nominal single-core figures for the roofline
// sections a profile might mark (tidal profile marks none).
perf::GpuSpec cpu_device_spec(const std::string& cpu_name);

// "model name" of the first processor in /proc/cpuinfo, or "unknown CPU".
std::string cpu_model_name();

}  // namespace tidal::profile
