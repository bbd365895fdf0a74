#include "perf/kernel_db_scaling.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "perf/roofline_attention.h"

namespace tidal::perf {
namespace {

constexpr double kActivationBytes = 2.0;  // bf16 activations and all-reduce messages

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

double kernel_weight_bytes(std::string_view dtype) {
  if (dtype == "fp8" || dtype == "fp8_block" || dtype == "sq" || dtype == "int8_wo") return 1.0;
  if (dtype == "int4_wo" || dtype == "nvfp4" || dtype == "mxfp4" || starts_with(dtype, "w4a")) {
    return 0.5;
  }
  return 2.0;
}

double kernel_peak_flops(std::string_view dtype, const GpuSpec& gpu) {
  auto or_bf16 = [&](double flops) { return flops > 0 ? flops : gpu.flops_bf16; };
  if (dtype == "fp8" || dtype == "fp8_block" || dtype == "w4a8_mxfp4_mxfp8") {
    return or_bf16(gpu.flops_fp8);
  }
  if (dtype == "nvfp4" || dtype == "mxfp4") return or_bf16(gpu.flops_fp4);
  if (dtype == "sq") return or_bf16(gpu.flops_int8);
  return gpu.flops_bf16;  // bf16, weight-only int4/int8, w4a16
}

KernelScaling::KernelScaling(const GpuSpec& gpu, const RooflineOptions& options)
    : gpu_(gpu), options_(options) {}

double KernelScaling::roofline(double flops, double peak_flops, double compute_eff, double bytes,
                               double memory_eff) const {
  return std::max({options_.min_kernel_seconds, flops / (peak_flops * compute_eff),
                   bytes / (gpu_.hbm_bandwidth_Bps * memory_eff)});
}

double KernelScaling::gemm(double m, double n, double k, std::string_view gemm_dtype) const {
  const double bytes = k * n * kernel_weight_bytes(gemm_dtype) + m * (k + n) * kActivationBytes;
  return roofline(2.0 * m * n * k, kernel_peak_flops(gemm_dtype, gpu_),
                  options_.gemm_compute_efficiency, bytes, options_.gemm_memory_efficiency);
}

double KernelScaling::moe(double tokens, const MoeKey& shape) const {
  const double e = static_cast<double>(shape.num_experts);
  const double k = static_cast<double>(shape.topk);
  const double h = static_cast<double>(shape.hidden);
  const double width = static_cast<double>(shape.inter) / static_cast<double>(shape.tp);
  const double ep = static_cast<double>(shape.ep);
  const double up_projections = shape.gated ? 2.0 : 1.0;
  const double params_per_gpu = (up_projections + 1.0) * h * width;
  // num_experts / ep experts on the GPU, the tokens routed to them (uniform routing).
  const double touched = e / ep * (1.0 - std::pow(1.0 - std::min(k / e, 1.0), tokens));
  const double assignments = tokens * k / ep;
  const double bytes = touched * params_per_gpu * kernel_weight_bytes(shape.dtype) +
                       assignments * (2.0 * h + (up_projections + 1.0) * width) * kActivationBytes;
  return roofline(2.0 * assignments * params_per_gpu, kernel_peak_flops(shape.dtype, gpu_),
                  options_.gemm_compute_efficiency, bytes, options_.gemm_memory_efficiency);
}

double KernelScaling::attention(const AttentionKey& shape, double batch, double c, double p) const {
  AttentionShape s;
  s.num_heads = static_cast<double>(shape.num_heads);
  s.num_kv_heads = static_cast<double>(shape.num_kv_heads);
  s.head_dim = static_cast<double>(shape.head_dim);
  s.kv_bytes = shape.kv_dtype == "fp8" ? 1.0 : 2.0;
  s.window = shape.window;
  const std::array<SeqWork, 1> one{
      SeqWork{static_cast<int64_t>(std::llround(c)), static_cast<int64_t>(std::llround(p)), 1}};
  const AttentionWork work = attention_work(s, one);
  const double flops = batch * (work.prefill.flops + work.decode.flops);
  const double bytes = batch * (work.prefill.bytes + work.decode.bytes);
  return roofline(flops, gpu_.flops_bf16, options_.attention_compute_efficiency, bytes,
                  options_.attention_memory_efficiency);
}

double KernelScaling::alltoall(double elements, int64_t num_gpus) const {
  const double n = static_cast<double>(num_gpus);
  if (num_gpus <= 1) return 0.0;
  return options_.alltoall_latency_s +
         (n - 1.0) / n * elements * kActivationBytes /
             (gpu_.interconnect_Bps * options_.alltoall_bandwidth_efficiency);
}

double KernelScaling::allreduce(double elements, int64_t num_gpus) const {
  const double tp = static_cast<double>(num_gpus);
  if (num_gpus <= 1) return 0.0;
  return options_.allreduce_latency_s +
         2.0 * (tp - 1.0) / tp * elements * kActivationBytes /
             (gpu_.interconnect_Bps * options_.allreduce_bandwidth_efficiency);
}

}  // namespace tidal::perf
