// GPU benchmark: prints one JSON object per figure (see bench/gpu_decode.cmake).
//   d2d_copy                 device-to-device cudaMemcpy of 2 GiB, read + write bytes / time
//   cublas_bf16_gemm         [4096 x 4096] x [4096 x 14336]^T through cuBLAS, TFLOP/s
//   decode_b1_bf16           one token, context 512, CUDA graph; vs weight bytes / d2d bandwidth
//   decode_b1_bf16_parts     the same step's linears alone and its other operators alone
//   decode_b1_bf16_gemv      the same step with the linears through the GEMV instead of cuBLAS
//   prefill_4096_bf16        one sequence of 4,096 new tokens; TFLOP/s vs the cuBLAS rate
//   prefill_4096_attention_layer  one layer's causal attention of that prompt, TFLOP/s
//   decode_b1_int8           as decode_b1_bf16 with int8 weight-only linears; speedup over bf16
//   decode_step              batch 1..256 x context 512..32768 (graphs); skipped when the KV of
//                            the shape does not fit the arena
//   decode_b1_bf16_fused     the fused layer (kernels/cuda/fused_dispatch.h: stacked q/k/v and
//                            interleaved gate/up weights, RoPE in the KV write, SwiGLU in the
//                            gate/up GEMV's epilogue, norms writing bf16); vs the same ideal
//   decode_b1_bf16_fused_gemv  the same with the linears through the GEMV (from bf16 x)
//   decode_b1_bf16_fused_gate_up_gemm  the same with gate/up as cuBLAS + the pairs kernel
//   prefill_4096_bf16_fused  the 4,096-token prefill through the fused layer
//   decode_b1_int8_fused     int8 weights, fused layer (fp32 activations); speedup over bf16
//   sample_b1, sample_b256   temperature / top-k / top-p over 128,256 logits a row, ms a row
// The model: Llama-3-8B shapes (hidden 4096, 32 layers, 32/8 heads, head_dim 128, MLP 14336,
// vocab 128256), random weights, bf16 KV cache sized from free memory.
//   gpu_decode [--no-table] [--iterations N]
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench/gpu_synthetic_model.h"
#include "bench/option_pairs.h"
#include "kernels/cuda/blas_gemm.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/decode_graphs.h"
#include "kernels/cuda/kv_arena.h"

namespace {

using namespace tidal::kernels;
using namespace tidal::kernels::cuda;
using namespace tidal::bench::gpu;

// Mean milliseconds of `launch` on the backend's stream after two warm-up runs.
template <typename Launch>
double time_ms(CudaBackend& backend, int iterations, Launch&& launch) {
  for (int i = 0; i < 2; ++i) launch();
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  TIDAL_CUDA_CHECK(cudaEventCreate(&start));
  TIDAL_CUDA_CHECK(cudaEventCreate(&stop));
  TIDAL_CUDA_CHECK(cudaEventRecord(start, backend.stream()));
  for (int i = 0; i < iterations; ++i) launch();
  TIDAL_CUDA_CHECK(cudaEventRecord(stop, backend.stream()));
  TIDAL_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  TIDAL_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return static_cast<double>(ms) / iterations;
}

// Decode step time through a CUDA graph captured for this batch.
double graph_decode_ms(CudaBackend& backend, SyntheticModel& model, StepBuffers& b,
                       const KvCacheView& kv, int64_t num_seqs, int iterations,
                       SyntheticModel::Parts parts = SyntheticModel::Parts::all) {
  model.step(b, num_seqs, num_seqs, kv, parts);  // grows scratch before capture
  backend.synchronize();
  DecodeGraphs graphs(backend.stream());
  graphs.capture(num_seqs, backend.scratch_generation(),
                 [&] { model.step(b, num_seqs, num_seqs, kv, parts); });
  return time_ms(backend, iterations, [&] { graphs.replay(num_seqs); });
}

double d2d_copy_gb_per_s(CudaBackend& backend) {
  const size_t bytes = size_t{2} << 30;
  DeviceBuffer<std::byte> src(bytes);
  DeviceBuffer<std::byte> dst(bytes);
  TIDAL_CUDA_CHECK(cudaMemsetAsync(src.data(), 1, bytes, backend.stream()));
  const double ms = time_ms(backend, 10, [&] {
    TIDAL_CUDA_CHECK(
        cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, backend.stream()));
  });
  return 2.0 * static_cast<double>(bytes) / ms / 1e6;
}

double cublas_bf16_tflops(CudaBackend& backend) {
  const int64_t m = 4096, n = 14336, k = 4096;
  DeviceBuffer<uint16_t> x(m * k);
  DeviceBuffer<uint16_t> w(n * k);
  DeviceBuffer<float> y(m * n);
  launch_fill_random_half(x.data(), m * k, HalfType::bf16, 1.0f, 11, backend.stream());
  launch_fill_random_half(w.data(), n * k, HalfType::bf16, 0.02f, 12, backend.stream());
  cublasHandle_t handle = nullptr;
  TIDAL_CUBLAS_CHECK(cublasCreate(&handle));
  TIDAL_CUBLAS_CHECK(cublasSetStream(handle, backend.stream()));
  const double ms = time_ms(backend, 10, [&] {
    gemm_half(handle, x.data(), m, w.data(), HalfType::bf16, n, k, y.data());
  });
  cublasDestroy(handle);
  return 2.0 * static_cast<double>(m * n * k) / ms / 1e9;
}

// Device sampling over a Llama-3 vocabulary at batch 1 and 256 (targets: < 0.1 ms a row at
// batch 1, < 2 ms for the batch of 256), for each cut the sampler has.
void sampling_figures(CudaBackend& backend, int iterations) {
  const int64_t max_rows = 256;
  std::vector<float> logits(max_rows * kVocab);  // [max_rows, vocab]
  std::mt19937_64 rng(13);
  for (float& x : logits) {
    x = static_cast<float>((static_cast<double>(rng() >> 11) * 0x1.0p-53 - 0.5) * 16.0);
  }
  std::vector<double> uniforms(max_rows);  // [max_rows]
  for (double& u : uniforms) u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  DeviceBuffer<float> d_logits(logits);
  DeviceBuffer<double> d_uniforms(uniforms);
  DeviceBuffer<int32_t> d_tokens(max_rows);
  struct Case {
    const char* cut;
    SamplingParams params;
  };
  for (const Case& c :
       {Case{"top_p", {0.8f, 0, 0.9f}}, Case{"top_k", {0.7f, 50, 1.0f}},
        Case{"top_k_top_p", {0.8f, 40, 0.5f}}, Case{"temperature", {1.0f, 0, 1.0f}}}) {
    for (const int64_t rows : {int64_t{1}, max_rows}) {
      const double ms = time_ms(backend, iterations, [&] {
        backend.sample(d_logits.data(), rows, kVocab, c.params, d_uniforms.data(), d_tokens.data());
      });
      const double target_ms = rows == 1 ? 0.1 : 2.0;
      std::printf(
          "{\"figure\": \"sample_b%lld\", \"cut\": \"%s\", \"vocab\": %lld, \"ms\": %.4f, "
          "\"ms_per_row\": %.4f, \"target_ms\": %.1f, \"meets_target\": %s}\n",
          static_cast<long long>(rows), c.cut, static_cast<long long>(kVocab), ms,
          ms / static_cast<double>(rows), target_ms, ms <= target_ms ? "true" : "false");
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool table = true;
  int iterations = 10;
  constexpr std::string_view kUsage = "usage: gpu_decode [--no-table] [--iterations N]";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-table") {
      table = false;
    } else if (arg == "--iterations" && i + 1 < argc) {
      iterations = tidal::bench::option_number(argv[0], arg, argv[++i], 1, kUsage);
    } else {
      std::fprintf(stderr, "%.*s\n", static_cast<int>(kUsage.size()), kUsage.data());
      return 2;
    }
  }
  if (device_count() == 0) {
    std::printf("{\"error\": \"no CUDA device\"}\n");
    return 1;
  }
  CudaBackend backend(0);
  std::printf("{\"figure\": \"device\", \"name\": \"%s\", \"sm\": %d, \"total_gib\": %.1f}\n",
              backend.info().name.c_str(), backend.info().compute_capability,
              static_cast<double>(backend.info().total_memory) / (1u << 30));
  const double bandwidth = d2d_copy_gb_per_s(backend);
  std::printf("{\"figure\": \"d2d_copy\", \"gb_per_s\": %.1f}\n", bandwidth);
  const double gemm_tflops = cublas_bf16_tflops(backend);
  std::printf(
      "{\"figure\": \"cublas_bf16_gemm\", \"m\": 4096, \"n\": 14336, \"k\": 4096, "
      "\"tflop_per_s\": %.1f}\n",
      gemm_tflops);
  std::fflush(stdout);

  const KvCacheSpec kv_shape{kLayers, 0, kBlockSize, kKvHeads, kHeadDim, KvDType::bf16};
  const int64_t max_seqs = 256, prefill_tokens = 4096;
  double bf16_b1_ms = 0.0;
  {
    SyntheticModel model(backend, false);
    StepBuffers buffers(prefill_tokens, max_seqs, 32768 / kBlockSize);
    const size_t weight_bytes = model.linear_bytes();
    CudaKvArena arena = CudaKvArena::sized_from_free_memory(kv_shape, 0.9, size_t{6} << 30);
    const KvCacheView kv = arena.view();
    std::printf("{\"figure\": \"kv_arena\", \"blocks\": %lld, \"gib\": %.1f}\n",
                static_cast<long long>(arena.spec().num_blocks),
                static_cast<double>(arena.bytes()) / (1u << 30));

    set_batch(buffers, 1, 512, 1);
    bf16_b1_ms = graph_decode_ms(backend, model, buffers, kv, 1, iterations);
    const double ideal_ms = static_cast<double>(weight_bytes) / bandwidth / 1e6;
    std::printf(
        "{\"figure\": \"decode_b1_bf16\", \"context\": 512, \"ms\": %.3f, "
        "\"weight_bytes\": %zu, \"ideal_ms\": %.3f, \"ratio_to_ideal\": %.3f, "
        "\"target_ratio\": 1.25, \"meets_target\": %s}\n",
        bf16_b1_ms, weight_bytes, ideal_ms, bf16_b1_ms / ideal_ms,
        bf16_b1_ms / ideal_ms <= 1.25 ? "true" : "false");
    const double eager_ms = time_ms(backend, iterations, [&] { model.step(buffers, 1, 1, kv); });
    std::printf("{\"figure\": \"decode_b1_bf16_no_graph\", \"ms\": %.3f}\n", eager_ms);
    // Where the step's time goes: the linears alone, everything else alone (graphs of each).
    const double linears_ms =
        graph_decode_ms(backend, model, buffers, kv, 1, iterations, SyntheticModel::Parts::linears);
    const double others_ms =
        graph_decode_ms(backend, model, buffers, kv, 1, iterations, SyntheticModel::Parts::others);
    std::printf(
        "{\"figure\": \"decode_b1_bf16_parts\", \"linears_ms\": %.3f, "
        "\"linears_gb_per_s\": %.1f, \"others_ms\": %.3f}\n",
        linears_ms, static_cast<double>(weight_bytes) / linears_ms / 1e6, others_ms);
    // The same step with the linears through the GEMV (CudaBackend::linear_half variant 1).
    backend.set_half_variant(1);
    const double gemv_ms = graph_decode_ms(backend, model, buffers, kv, 1, iterations);
    backend.set_half_variant(0);
    std::printf("{\"figure\": \"decode_b1_bf16_gemv\", \"ms\": %.3f}\n", gemv_ms);
    std::fflush(stdout);

    set_batch(buffers, 1, prefill_tokens, prefill_tokens);
    const double prefill_ms =
        time_ms(backend, 3, [&] { model.step(buffers, prefill_tokens, 1, kv); });
    // bf16: bytes / 2 weights, 2 FLOPs per weight per token; the LM head runs on the last row only.
    const double linear_flops = static_cast<double>(model.layer_linear_bytes()) * prefill_tokens +
                                static_cast<double>(model.lm_head_bytes());
    const double attention_flops = 4.0 * kLayers * kHeads * kHeadDim *
                                   static_cast<double>(prefill_tokens) * prefill_tokens / 2.0;
    const double prefill_tflops = (linear_flops + attention_flops) / prefill_ms / 1e9;
    std::printf(
        "{\"figure\": \"prefill_4096_bf16\", \"ms\": %.2f, \"tflop_per_s\": %.1f, "
        "\"share_of_cublas\": %.3f, \"target_share\": 0.6, \"meets_target\": %s}\n",
        prefill_ms, prefill_tflops, prefill_tflops / gemm_tflops,
        prefill_tflops / gemm_tflops >= 0.6 ? "true" : "false");
    // One layer's causal attention over the prompt alone (the cache holds the step's keys).
    const double attention_ms = time_ms(backend, 3, [&] {
      backend.paged_attention(buffers.q.data(), kv, 0, buffers.batch,
                              1.0f / std::sqrt(static_cast<float>(kHeadDim)), buffers.attn.data());
    });
    std::printf(
        "{\"figure\": \"prefill_4096_attention_layer\", \"ms\": %.3f, \"tflop_per_s\": %.1f}\n",
        attention_ms, attention_flops / kLayers / attention_ms / 1e9);
    std::fflush(stdout);

    if (table) {
      for (const int64_t batch : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
        for (const int64_t context : {512, 1024, 2048, 4096, 8192, 16384, 32768}) {
          const int64_t blocks = batch * ((context + kBlockSize - 1) / kBlockSize);
          if (blocks > arena.spec().num_blocks) {
            std::printf(
                "{\"figure\": \"decode_step\", \"batch\": %lld, \"context\": %lld, "
                "\"skipped\": \"kv of %lld blocks exceeds the arena\"}\n",
                static_cast<long long>(batch), static_cast<long long>(context),
                static_cast<long long>(blocks));
            continue;
          }
          set_batch(buffers, batch, context, 1);
          const double ms = graph_decode_ms(backend, model, buffers, kv, batch, 5);
          std::printf(
              "{\"figure\": \"decode_step\", \"batch\": %lld, \"context\": %lld, "
              "\"ms\": %.3f, \"tokens_per_s\": %.0f}\n",
              static_cast<long long>(batch), static_cast<long long>(context), ms,
              static_cast<double>(batch) * 1000.0 / ms);
          std::fflush(stdout);
        }
      }
    }
  }
  // The fused layer (bf16): decode, its GEMV and gate/up variants, and the 4,096-token prefill.
  double fused_b1_ms = 0.0;
  {
    SyntheticModel model(backend, false, true);
    StepBuffers buffers(prefill_tokens, 1, prefill_tokens / kBlockSize);
    KvCacheSpec small = kv_shape;
    small.num_blocks = prefill_tokens / kBlockSize + 64;
    CudaKvArena arena(small);
    const KvCacheView kv = arena.view();
    const double ideal_ms = static_cast<double>(model.linear_bytes()) / bandwidth / 1e6;
    set_batch(buffers, 1, 512, 1);
    fused_b1_ms = graph_decode_ms(backend, model, buffers, kv, 1, iterations);
    std::printf(
        "{\"figure\": \"decode_b1_bf16_fused\", \"context\": 512, \"ms\": %.3f, "
        "\"unfused_ms\": %.3f, \"ideal_ms\": %.3f, \"ratio_to_ideal\": %.3f, "
        "\"target_ratio\": 1.25, \"meets_target\": %s}\n",
        fused_b1_ms, bf16_b1_ms, ideal_ms, fused_b1_ms / ideal_ms,
        fused_b1_ms / ideal_ms <= 1.25 ? "true" : "false");
    backend.set_half_variant(1);
    const double gemv_ms = graph_decode_ms(backend, model, buffers, kv, 1, iterations);
    backend.set_half_variant(0);
    std::printf(
        "{\"figure\": \"decode_b1_bf16_fused_gemv\", \"ms\": %.3f, \"ratio_to_ideal\": %.3f}\n",
        gemv_ms, gemv_ms / ideal_ms);
    backend.set_gate_up_variant(2);
    const double gate_up_gemm_ms = graph_decode_ms(backend, model, buffers, kv, 1, iterations);
    backend.set_gate_up_variant(0);
    std::printf(
        "{\"figure\": \"decode_b1_bf16_fused_gate_up_gemm\", \"ms\": %.3f, "
        "\"ratio_to_ideal\": %.3f}\n",
        gate_up_gemm_ms, gate_up_gemm_ms / ideal_ms);
    std::fflush(stdout);

    set_batch(buffers, 1, prefill_tokens, prefill_tokens);
    const double prefill_ms =
        time_ms(backend, 3, [&] { model.step(buffers, prefill_tokens, 1, kv); });
    const double linear_flops = static_cast<double>(model.layer_linear_bytes()) * prefill_tokens +
                                static_cast<double>(model.lm_head_bytes());
    const double attention_flops = 4.0 * kLayers * kHeads * kHeadDim *
                                   static_cast<double>(prefill_tokens) * prefill_tokens / 2.0;
    const double prefill_tflops = (linear_flops + attention_flops) / prefill_ms / 1e9;
    std::printf(
        "{\"figure\": \"prefill_4096_bf16_fused\", \"ms\": %.2f, \"tflop_per_s\": %.1f, "
        "\"share_of_cublas\": %.3f, \"target_share\": 0.6, \"meets_target\": %s}\n",
        prefill_ms, prefill_tflops, prefill_tflops / gemm_tflops,
        prefill_tflops / gemm_tflops >= 0.6 ? "true" : "false");
    std::fflush(stdout);
  }
  {
    SyntheticModel model(backend, true);
    StepBuffers buffers(16, 16, 512 / kBlockSize);
    KvCacheSpec small = kv_shape;
    small.num_blocks = 64;
    CudaKvArena arena(small);
    set_batch(buffers, 1, 512, 1);
    const double int8_ms = graph_decode_ms(backend, model, buffers, arena.view(), 1, iterations);
    const double ideal_ms = static_cast<double>(model.linear_bytes()) / bandwidth / 1e6;
    std::printf(
        "{\"figure\": \"decode_b1_int8\", \"context\": 512, \"ms\": %.3f, "
        "\"ratio_to_ideal\": %.3f, \"speedup_over_bf16\": %.3f, \"target_speedup\": 1.6, "
        "\"meets_target\": %s}\n",
        int8_ms, int8_ms / ideal_ms, bf16_b1_ms / int8_ms,
        bf16_b1_ms / int8_ms >= 1.6 ? "true" : "false");
    std::fflush(stdout);
  }
  {
    SyntheticModel model(backend, true, true);
    StepBuffers buffers(16, 16, 512 / kBlockSize);
    KvCacheSpec small = kv_shape;
    small.num_blocks = 64;
    CudaKvArena arena(small);
    set_batch(buffers, 1, 512, 1);
    const double int8_ms = graph_decode_ms(backend, model, buffers, arena.view(), 1, iterations);
    const double ideal_ms = static_cast<double>(model.linear_bytes()) / bandwidth / 1e6;
    std::printf(
        "{\"figure\": \"decode_b1_int8_fused\", \"context\": 512, \"ms\": %.3f, "
        "\"ratio_to_ideal\": %.3f, \"speedup_over_bf16_fused\": %.3f, "
        "\"speedup_over_bf16\": %.3f, \"target_speedup\": 1.6, \"meets_target\": %s}\n",
        int8_ms, int8_ms / ideal_ms, fused_b1_ms / int8_ms, bf16_b1_ms / int8_ms,
        fused_b1_ms / int8_ms >= 1.6 ? "true" : "false");
    std::fflush(stdout);
  }
  sampling_figures(backend, iterations);
  return 0;
}
