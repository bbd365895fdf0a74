#include "engine/profile/cpu_target.h"

#include <fstream>

namespace tidal::profile {

perf::ModelSpec model_spec_for(const models::ModelConfig& config, const std::string& name) {
  perf::ModelSpec spec;
  spec.name = name;
  spec.num_layers = config.num_layers;
  spec.hidden = config.hidden_size;
  spec.num_heads = config.num_heads;
  spec.num_kv_heads = config.num_kv_heads;
  spec.head_dim = config.head_dim;
  spec.intermediate = config.intermediate_size;
  spec.vocab = config.vocab_size;
  spec.gated_mlp = true;
  if (config.is_moe()) {
    spec.num_experts = config.num_local_experts;
    spec.num_active_experts = config.num_experts_per_tok;
    spec.moe_intermediate = config.intermediate_size;
  }
  spec.tied_embeddings = config.tie_word_embeddings;
  spec.max_position = config.max_position_embeddings;
  spec.source = "tidal engine model config";
  return spec;
}

perf::DType weight_dtype_for(const models::QuantSpec& quant) {
  switch (quant.format) {
    case kernels::WeightFormat::int8:
      return perf::DType::int8;
    case kernels::WeightFormat::fp8_e4m3:
      return perf::DType::fp8;
    case kernels::WeightFormat::bf16:
      return perf::DType::bf16;
    case kernels::WeightFormat::fp16:
      return perf::DType::fp16;
    case kernels::WeightFormat::f32:
      break;
  }
  return perf::DType::fp32;
}

perf::DType kv_dtype_for(kernels::KvDType dtype) {
  switch (dtype) {
    case kernels::KvDType::bf16:
      return perf::DType::bf16;
    case kernels::KvDType::int8:
      return perf::DType::int8;
    case kernels::KvDType::f32:
      break;
  }
  return perf::DType::fp32;
}

perf::Deployment deployment_for(const engine::EngineConfig& config) {
  perf::Deployment deployment;
  deployment.tp = config.tp;
  deployment.weight_dtype = weight_dtype_for(config.quant);
  deployment.kv_dtype = kv_dtype_for(config.kv_dtype);
  deployment.block_size = config.block_size;
  deployment.max_num_batched_tokens = config.scheduler.max_num_batched_tokens;
  return deployment;
}

perf::GpuSpec cpu_device_spec(const std::string& cpu_name) {
  perf::GpuSpec spec;
  spec.name = cpu_name;
  spec.memory_bytes = 64.0 * 1024 * 1024 * 1024;
  spec.hbm_bandwidth_Bps = 10e9;
  spec.flops_bf16 = 50e9;
  spec.interconnect_Bps = 8e9;
  spec.pcie_Bps = 8e9;
  spec.source = "nominal CPU figures (tidal profile measures every section it writes)";
  return spec;
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "unknown CPU" : line.substr(start);
  }
  return "unknown CPU";
}

}  // namespace tidal::profile
