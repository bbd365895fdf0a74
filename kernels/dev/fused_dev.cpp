// The fused decode operators (kernels/cuda/fused_dispatch.h) beside the unfused operators they
// replace, at Llama-3-8B shapes and decode / prefill token counts, against the CPU references
// (kernels/cpu/fused_reference.h); prints validation and GB/s of bytes read + written.
//   variant 1 = fused; 2 = for gate_up, one GEMM then the pairs kernel, otherwise the unfused
//   operators; 3 = gate_up as today (two linears, SwiGLU).
//   fused_dev [variant]   (0 or none = all)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/fused_reference.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/kv_arena.h"
#include "kernels/dev/dev_support.h"
#include "kernels/numeric/bf16.h"
#include "kernels/rope_frequencies.h"

using namespace tidal::kernels;

namespace {

constexpr int64_t kHidden = 4096, kHeads = 32, kKvHeads = 8, kHeadDim = 128, kIntermediate = 14336;

void report(const char* kernel, int variant, int64_t tokens, double error, double tolerance,
            double ms, double bytes) {
  std::printf(
      "{\"kernel\": \"%s\", \"variant\": %d, \"tokens\": %lld, \"rel_error\": %.3g, "
      "\"valid\": %s, \"ms\": %.4f, \"gb_per_s\": %.1f}\n",
      kernel, variant, static_cast<long long>(tokens), error, error <= tolerance ? "true" : "false",
      ms, bytes / ms / 1e6);
  std::fflush(stdout);
}

std::vector<float> widen(const std::vector<uint16_t>& bits) {
  std::vector<float> values(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) values[i] = bf16_to_float(bits[i]);
  return values;
}

std::vector<uint16_t> to_bf16(const std::vector<float>& values) {
  std::vector<uint16_t> bits(values.size());
  for (size_t i = 0; i < values.size(); ++i) bits[i] = float_to_bf16(values[i]);
  return bits;
}

void rope_write_kv(cuda::CudaBackend& backend, std::mt19937_64& rng, int64_t tokens, int only) {
  const QkvLayout layout{kHeads, kKvHeads, kHeadDim};
  const KvCacheSpec spec{1, (tokens + 15) / 16, 16, kKvHeads, kHeadDim, KvDType::bf16};
  const auto qkv = dev::random_values(rng, tokens * layout.row_stride());
  std::vector<int32_t> positions(tokens);
  std::vector<int64_t> slots(tokens);
  for (int64_t t = 0; t < tokens; ++t) {
    positions[t] = static_cast<int32_t>((t * 37) % 8192);
    slots[t] = t;
  }
  const auto inv_freq = rope_inv_freq(kHeadDim, 500000.0, std::nullopt);
  KvArena host_arena(spec);
  std::vector<float> expected_q(tokens * kHeads * kHeadDim);
  reference::rope_write_kv(qkv.data(), layout, positions.data(), tokens, inv_freq.data(),
                           host_arena.view(), 0, slots.data(), expected_q.data());
  cuda::CudaKvArena arena(spec);
  cuda::DeviceBuffer<float> d_qkv(qkv), d_inv_freq(inv_freq), d_q(expected_q.size());
  cuda::DeviceBuffer<int32_t> d_positions(positions);
  cuda::DeviceBuffer<int64_t> d_slots(slots);
  const int64_t kv_width = kKvHeads * kHeadDim;
  cuda::DeviceBuffer<float> d_k(tokens * kv_width), d_v(tokens * kv_width);
  const double bytes = 4.0 * static_cast<double>(qkv.size() + expected_q.size()) +
                       static_cast<double>(2 * tokens * kv_width * 2);
  for (const int variant : {1, 2}) {
    if (only != 0 && only != variant) continue;
    const auto run = [&] {
      if (variant == 1) {
        cuda::launch_rope_write_kv(d_qkv.data(), layout, d_positions.data(), tokens,
                                   d_inv_freq.data(), arena.view(), 0, d_slots.data(), d_q.data(),
                                   backend.stream());
        return;
      }
      // Today's path on separate q / k / v (the GEMM outputs): rope, then write_kv.
      backend.rope(d_q.data(), d_k.data(), d_positions.data(), tokens, kHeads, kKvHeads, kHeadDim,
                   d_inv_freq.data());
      backend.write_kv(arena.view(), 0, d_k.data(), d_v.data(), d_slots.data(), tokens);
    };
    double error = 0.0;
    if (variant == 1) {
      run();
      backend.synchronize();
      error = dev::relative_error(d_q.to_host(), expected_q);
    }
    const double ms = dev::time_ms(backend.stream(), 20, run);
    report("rope_write_kv", variant, tokens, error, 1e-4, ms, bytes);
  }
}

void norm_half(cuda::CudaBackend& backend, std::mt19937_64& rng, int64_t tokens, int only) {
  const int64_t n = tokens * kHidden;
  const auto x = dev::random_values(rng, n);
  const auto residual = dev::random_values(rng, n);
  const auto weight = dev::random_values(rng, kHidden);
  std::vector<float> expected_residual = residual;
  std::vector<uint16_t> expected(n);
  reference::add_rms_norm_to_half(expected_residual.data(), x.data(), weight.data(), tokens,
                                  kHidden, 1e-5f, WeightFormat::bf16, expected.data());
  cuda::DeviceBuffer<float> d_x(x), d_weight(weight), d_out(n);
  cuda::DeviceBuffer<uint16_t> d_half(n);
  for (const int variant : {1, 2}) {
    if (only != 0 && only != variant) continue;
    cuda::DeviceBuffer<float> d_residual(residual);
    const auto run = [&] {
      if (variant == 1) {
        backend.add_rms_norm_half(d_residual.data(), d_x.data(), d_weight.data(), tokens, kHidden,
                                  1e-5f, cuda::HalfType::bf16, d_half.data());
        return;
      }
      backend.add_rms_norm(d_residual.data(), d_x.data(), d_weight.data(), tokens, kHidden, 1e-5f,
                           d_out.data());
      cuda::launch_float_to_half(d_out.data(), n, cuda::HalfType::bf16, d_half.data(),
                                 backend.stream());
    };
    run();
    backend.synchronize();
    const double error = dev::relative_error(widen(d_half.to_host()), widen(expected));
    const double ms = dev::time_ms(backend.stream(), 20, run);
    report("add_rms_norm_half", variant, tokens, error, 1e-2, ms, 14.0 * static_cast<double>(n));
  }
}

void gate_up(cuda::CudaBackend& backend, cpu::CpuBackend& cpu_backend, std::mt19937_64& rng,
             int64_t tokens, int only) {
  const int64_t rows = 2 * kIntermediate;
  cuda::DeviceBuffer<uint16_t> d_w(rows * kHidden);  // interleaved gate/up, bf16
  cuda::launch_fill_random_half(d_w.data(), rows * kHidden, cuda::HalfType::bf16, 0.03f, 21,
                                backend.stream());
  backend.synchronize();
  const std::vector<uint16_t> w = d_w.to_host();
  const std::vector<uint16_t> x = to_bf16(dev::random_values(rng, tokens * kHidden));
  // The reference: the CPU linear of the widened activations (bit for bit reference::linear),
  // then reference::swiglu_pairs_to_half.
  LinearView view{WeightFormat::bf16, rows, kHidden, 0, w.data(), nullptr};
  std::vector<float> pairs(tokens * rows);
  const std::vector<float> x_values = widen(x);
  cpu_backend.linear(x_values.data(), tokens, view, pairs.data());
  std::vector<uint16_t> expected(tokens * kIntermediate);
  reference::swiglu_pairs_to_half(pairs.data(), tokens, kIntermediate, WeightFormat::bf16,
                                  expected.data());
  cuda::DeviceBuffer<uint16_t> d_x(x), d_out(tokens * kIntermediate);
  cuda::DeviceBuffer<float> d_x_f32(x_values), d_pairs(tokens * rows),
      d_act(tokens * kIntermediate);
  const cuda::HalfLinearView fused{cuda::HalfType::bf16, rows, kHidden, d_w.data()};
  // Variant 3 reads the same bytes as two [intermediate, hidden] weights (rows 0.. and I..).
  const cuda::HalfLinearView first{cuda::HalfType::bf16, kIntermediate, kHidden, d_w.data()};
  const cuda::HalfLinearView second{cuda::HalfType::bf16, kIntermediate, kHidden,
                                    d_w.data() + kIntermediate * kHidden};
  for (const int variant : {1, 2, 3}) {
    if (only != 0 && only != variant) continue;
    const auto run = [&] {
      if (variant == 3) {
        backend.linear_half(d_x_f32.data(), tokens, first, d_pairs.data());
        backend.linear_half(d_x_f32.data(), tokens, second, d_act.data());
        backend.swiglu(d_pairs.data(), d_act.data(), tokens * kIntermediate, d_act.data());
        return;
      }
      backend.set_gate_up_variant(variant);
      backend.gate_up_swiglu_half(d_x.data(), tokens, fused, d_out.data());
      backend.set_gate_up_variant(0);
    };
    run();
    backend.synchronize();
    // Variant 3 computes another function of the same weights (not interleaved): timing only.
    const double error =
        variant == 3 ? 0.0 : dev::relative_error(widen(d_out.to_host()), widen(expected));
    const double ms = dev::time_ms(backend.stream(), 10, run);
    report("gate_up_swiglu", variant, tokens, error, 1e-2, ms,
           2.0 * static_cast<double>(rows * kHidden));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int only = argc > 1 ? std::atoi(argv[1]) : 0;
  if (cuda::device_count() == 0) {
    std::printf("{\"error\": \"no CUDA device\"}\n");
    return 1;
  }
  cuda::CudaBackend backend(0);
  cpu::CpuBackend cpu_backend(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  std::mt19937_64 rng(17);
  for (const int64_t tokens : {1, 64, 4096}) {
    rope_write_kv(backend, rng, tokens, only);
    norm_half(backend, rng, tokens, only);
  }
  for (const int64_t tokens : {1, 8, 16, 256}) gate_up(backend, cpu_backend, rng, tokens, only);
  return 0;
}
