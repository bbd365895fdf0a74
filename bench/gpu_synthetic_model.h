// The GPU benchmark's synthetic model (bench/gpu_decode.cpp): Llama-3-8B shapes with random
// weights on the CUDA backend, bf16 or int8 weight-only linears, separate or fused (stacked
// q/k/v, interleaved gate/up) layers, the step buffers they run on, and a batch of sequences laid
// out in the KV arena.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "kernels/cuda/blas_gemm.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/kv_arena.h"
#include "kernels/rope_frequencies.h"

namespace tidal::bench::gpu {

using namespace tidal::kernels;
using namespace tidal::kernels::cuda;

constexpr int64_t kHidden = 4096, kLayers = 32, kHeads = 32, kKvHeads = 8, kHeadDim = 128,
                  kIntermediate = 14336, kVocab = 128256, kBlockSize = 16;
constexpr float kEps = 1e-5f;

// One linear layer with random weights: bf16, or int8 weight-only with per-channel scales.
class SyntheticLinear {
 public:
  SyntheticLinear(CudaBackend& backend, int64_t rows, int64_t cols, bool int8, uint64_t seed)
      : rows_(rows), cols_(cols), int8_(int8) {
    if (int8) {
      codes_ = DeviceBuffer<int8_t>(rows * cols);
      launch_fill_random_int8(codes_.data(), rows * cols, seed, backend.stream());
      // |w| <= sqrt(3 / cols): the variance of a unit-preserving random init.
      scales_ = DeviceBuffer<float>(
          std::vector<float>(rows, std::sqrt(3.0f / static_cast<float>(cols)) / 127.0f));
    } else {
      half_ = DeviceBuffer<uint16_t>(rows * cols);
      launch_fill_random_half(half_.data(), rows * cols, HalfType::bf16,
                              std::sqrt(3.0f / static_cast<float>(cols)), seed, backend.stream());
    }
  }
  void run(CudaBackend& backend, const float* x, int64_t num_tokens, float* y) const {
    if (int8_) {
      backend.linear(x, num_tokens, int8_view(), y);
    } else {
      backend.linear_half(x, num_tokens, half_view(), y);
    }
  }
  // bf16 weights only: x already bf16 (the fused layer's norms and SwiGLU write it).
  void run_from_half(CudaBackend& backend, const uint16_t* x, int64_t num_tokens, float* y) const {
    backend.linear_from_half(x, num_tokens, half_view(), y);
  }
  bool int8() const { return int8_; }
  HalfLinearView half_view() const { return {HalfType::bf16, rows_, cols_, half_.data()}; }
  LinearView int8_view() const {
    LinearView view;
    view.format = WeightFormat::int8;
    view.rows = rows_;
    view.cols = cols_;
    view.group_size = cols_;
    view.data = codes_.data();
    view.scales = scales_.data();
    return view;
  }
  size_t bytes() const { return int8_ ? codes_.bytes() + scales_.bytes() : half_.bytes(); }

 private:
  int64_t rows_;
  int64_t cols_;
  bool int8_;
  DeviceBuffer<uint16_t> half_;  // [rows, cols] bf16
  DeviceBuffer<int8_t> codes_;   // [rows, cols]
  DeviceBuffer<float> scales_;   // [rows]
};

// Separate q, k, v, gate, up; or (fused) one stacked qkv and one interleaved gate_up.
struct SyntheticLayer {
  std::unique_ptr<SyntheticLinear> q, k, v, o, gate, up, down;
  std::unique_ptr<SyntheticLinear> qkv, gate_up;
  DeviceBuffer<float> input_norm;      // [hidden]
  DeviceBuffer<float> post_attn_norm;  // [hidden]
};

// Activations and batch arrays for steps of up to max_tokens tokens and max_seqs sequences.
struct StepBuffers {
  StepBuffers(int64_t max_tokens, int64_t max_seqs, int64_t max_blocks)
      : token_ids(max_tokens),
        positions(max_tokens),
        slot_mapping(max_tokens),
        query_start_loc(max_seqs + 1),
        block_tables(max_seqs * max_blocks),
        last_rows(max_seqs),
        residual(max_tokens * kHidden),
        normed(max_tokens * kHidden),
        sublayer(max_tokens * kHidden),
        q(max_tokens * kHeads * kHeadDim),
        k(max_tokens * kKvHeads * kHeadDim),
        v(max_tokens * kKvHeads * kHeadDim),
        attn(max_tokens * kHeads * kHeadDim),
        gate(max_tokens * kIntermediate),
        up(max_tokens * kIntermediate),
        qkv(max_tokens * (kHeads + 2 * kKvHeads) * kHeadDim),
        normed_half(max_tokens * kHidden),
        act_half(max_tokens * kIntermediate),
        last(max_seqs * kHidden),
        logits(max_seqs * kVocab),
        next_tokens(max_seqs) {}
  DeviceBuffer<int32_t> token_ids;        // [num_tokens]
  DeviceBuffer<int32_t> positions;        // [num_tokens]
  DeviceBuffer<int64_t> slot_mapping;     // [num_tokens]
  DeviceBuffer<int32_t> query_start_loc;  // [num_seqs + 1]
  DeviceBuffer<int32_t> block_tables;     // [num_seqs, max_blocks_per_seq]
  DeviceBuffer<int32_t> last_rows;        // [num_seqs]
  DeviceBuffer<float> residual;           // [num_tokens, hidden]
  DeviceBuffer<float> normed;             // [num_tokens, hidden]
  DeviceBuffer<float> sublayer;           // [num_tokens, hidden]
  DeviceBuffer<float> q;                  // [num_tokens, heads, head_dim]
  DeviceBuffer<float> k;                  // [num_tokens, kv_heads, head_dim]
  DeviceBuffer<float> v;                  // [num_tokens, kv_heads, head_dim]
  DeviceBuffer<float> attn;               // [num_tokens, heads, head_dim]
  DeviceBuffer<float> gate;               // [num_tokens, intermediate]
  DeviceBuffer<float> up;                 // [num_tokens, intermediate]
  DeviceBuffer<float> qkv;                // [num_tokens, heads + 2 * kv_heads, head_dim]
  DeviceBuffer<uint16_t> normed_half;     // [num_tokens, hidden] bf16
  DeviceBuffer<uint16_t> act_half;        // [num_tokens, intermediate] bf16
  DeviceBuffer<float> last;               // [num_seqs, hidden]
  DeviceBuffer<float> logits;             // [num_seqs, vocab]
  DeviceBuffer<int32_t> next_tokens;      // [num_seqs]
  AttentionBatch batch;                   // device pointers into the arrays above
};

class SyntheticModel {
 public:
  // fused: the layer of kernels/cuda/fused_dispatch.h (random weights drawn directly in the
  // stacked / interleaved layouts: the same bytes as the separate weights).
  SyntheticModel(CudaBackend& backend, bool int8, bool fused = false)
      : backend_(backend), fused_(fused) {
    const std::vector<float> ones(kHidden, 1.0f);
    uint64_t seed = int8 ? 1000 : 1;
    for (int64_t l = 0; l < kLayers; ++l) {
      SyntheticLayer layer;
      const auto linear = [&](int64_t rows, int64_t cols) {
        return std::make_unique<SyntheticLinear>(backend, rows, cols, int8, seed++);
      };
      if (fused) {
        layer.qkv = linear((kHeads + 2 * kKvHeads) * kHeadDim, kHidden);
        layer.gate_up = linear(2 * kIntermediate, kHidden);
      } else {
        layer.q = linear(kHeads * kHeadDim, kHidden);
        layer.k = linear(kKvHeads * kHeadDim, kHidden);
        layer.v = linear(kKvHeads * kHeadDim, kHidden);
        layer.gate = linear(kIntermediate, kHidden);
        layer.up = linear(kIntermediate, kHidden);
      }
      layer.o = linear(kHidden, kHeads * kHeadDim);
      layer.down = linear(kHidden, kIntermediate);
      layer.input_norm = DeviceBuffer<float>(ones);
      layer.post_attn_norm = DeviceBuffer<float>(ones);
      layers_.push_back(std::move(layer));
    }
    lm_head_ = std::make_unique<SyntheticLinear>(backend, kVocab, kHidden, int8, seed++);
    final_norm_ = DeviceBuffer<float>(ones);
    // The embedding table is fp32 (the Backend interface); only num_tokens rows are read.
    std::vector<float> table(kVocab * kHidden);
    std::mt19937_64 rng(7);
    for (float& x : table)
      x = static_cast<float>(static_cast<double>(rng() >> 11) * 0x1.0p-53 - 0.5);
    embed_ = DeviceBuffer<float>(table);
    inv_freq_ = DeviceBuffer<float>(rope_inv_freq(kHeadDim, 500000.0, std::nullopt));
    backend.synchronize();
  }

  // Bytes of the decoder layers' linear weights (every token goes through them).
  size_t layer_linear_bytes() const {
    size_t total = 0;
    for (const auto& l : layers_) {
      for (const auto* w : {l.q.get(), l.k.get(), l.v.get(), l.o.get(), l.gate.get(), l.up.get(),
                            l.down.get(), l.qkv.get(), l.gate_up.get()}) {
        if (w != nullptr) total += w->bytes();
      }
    }
    return total;
  }
  size_t lm_head_bytes() const { return lm_head_->bytes(); }
  // Bytes every decode step must read: all linear weights (embedding rows are negligible).
  size_t linear_bytes() const { return layer_linear_bytes() + lm_head_bytes(); }

  // Which operators a step runs: all, or (to split its time) only the linears or only the rest.
  enum class Parts { all, linears, others };

  // One forward step over buffers' batch; next_tokens gets the argmax of each sequence.
  void step(StepBuffers& b, int64_t num_tokens, int64_t num_seqs, const KvCacheView& kv,
            Parts parts = Parts::all) {
    if (fused_) {
      step_fused(b, num_tokens, num_seqs, kv);
      return;
    }
    const bool linears = parts != Parts::others;
    const bool others = parts != Parts::linears;
    CudaBackend& be = backend_;
    if (others)
      be.embedding(embed_.data(), kHidden, b.token_ids.data(), num_tokens, b.residual.data());
    const float scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim));
    for (int64_t l = 0; l < kLayers; ++l) {
      const SyntheticLayer& layer = layers_[l];
      if (others && l == 0) {
        be.rms_norm(b.residual.data(), layer.input_norm.data(), num_tokens, kHidden, kEps,
                    b.normed.data());
      } else if (others) {
        be.add_rms_norm(b.residual.data(), b.sublayer.data(), layer.input_norm.data(), num_tokens,
                        kHidden, kEps, b.normed.data());
      }
      if (linears) layer.q->run(be, b.normed.data(), num_tokens, b.q.data());
      if (linears) layer.k->run(be, b.normed.data(), num_tokens, b.k.data());
      if (linears) layer.v->run(be, b.normed.data(), num_tokens, b.v.data());
      if (others)
        be.rope(b.q.data(), b.k.data(), b.positions.data(), num_tokens, kHeads, kKvHeads, kHeadDim,
                inv_freq_.data());
      if (others) be.write_kv(kv, l, b.k.data(), b.v.data(), b.slot_mapping.data(), num_tokens);
      if (others) be.paged_attention(b.q.data(), kv, l, b.batch, scale, b.attn.data());
      if (linears) layer.o->run(be, b.attn.data(), num_tokens, b.sublayer.data());
      if (others)
        be.add_rms_norm(b.residual.data(), b.sublayer.data(), layer.post_attn_norm.data(),
                        num_tokens, kHidden, kEps, b.normed.data());
      if (linears) layer.gate->run(be, b.normed.data(), num_tokens, b.gate.data());
      if (linears) layer.up->run(be, b.normed.data(), num_tokens, b.up.data());
      if (others) be.swiglu(b.gate.data(), b.up.data(), num_tokens * kIntermediate, b.gate.data());
      if (linears) layer.down->run(be, b.gate.data(), num_tokens, b.sublayer.data());
    }
    if (others)
      be.add_rms_norm(b.residual.data(), b.sublayer.data(), final_norm_.data(), num_tokens, kHidden,
                      kEps, b.normed.data());
    if (others)
      be.gather_rows(b.normed.data(), b.last_rows.data(), num_seqs, kHidden, b.last.data());
    if (linears) lm_head_->run(be, b.last.data(), num_seqs, b.logits.data());
    if (others) be.argmax(b.logits.data(), num_seqs, kVocab, b.next_tokens.data());
  }

 private:
  // The fused layer: bf16 weights keep bf16 activations into every linear but o; int8 weights
  // keep fp32 activations (the int8 GEMV reads fp32) and fuse RoPE + KV write and gate/up.
  void step_fused(StepBuffers& b, int64_t num_tokens, int64_t num_seqs, const KvCacheView& kv) {
    CudaBackend& be = backend_;
    const QkvLayout layout{kHeads, kKvHeads, kHeadDim};
    const float scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim));
    be.embedding(embed_.data(), kHidden, b.token_ids.data(), num_tokens, b.residual.data());
    for (int64_t l = 0; l < kLayers; ++l) {
      const SyntheticLayer& layer = layers_[l];
      const bool half = !layer.qkv->int8();
      if (half && l == 0) {
        be.rms_norm_half(b.residual.data(), layer.input_norm.data(), num_tokens, kHidden, kEps,
                         HalfType::bf16, b.normed_half.data());
      } else if (half) {
        be.add_rms_norm_half(b.residual.data(), b.sublayer.data(), layer.input_norm.data(),
                             num_tokens, kHidden, kEps, HalfType::bf16, b.normed_half.data());
      } else if (l == 0) {
        be.rms_norm(b.residual.data(), layer.input_norm.data(), num_tokens, kHidden, kEps,
                    b.normed.data());
      } else {
        be.add_rms_norm(b.residual.data(), b.sublayer.data(), layer.input_norm.data(), num_tokens,
                        kHidden, kEps, b.normed.data());
      }
      if (half) {
        layer.qkv->run_from_half(be, b.normed_half.data(), num_tokens, b.qkv.data());
      } else {
        layer.qkv->run(be, b.normed.data(), num_tokens, b.qkv.data());
      }
      be.rope_write_kv(b.qkv.data(), num_tokens, layout, b.positions.data(), inv_freq_.data(), kv,
                       l, b.slot_mapping.data(), b.q.data());
      be.paged_attention(b.q.data(), kv, l, b.batch, scale, b.attn.data());
      layer.o->run(be, b.attn.data(), num_tokens, b.sublayer.data());
      if (half) {
        be.add_rms_norm_half(b.residual.data(), b.sublayer.data(), layer.post_attn_norm.data(),
                             num_tokens, kHidden, kEps, HalfType::bf16, b.normed_half.data());
        be.gate_up_swiglu_half(b.normed_half.data(), num_tokens, layer.gate_up->half_view(),
                               b.act_half.data());
        layer.down->run_from_half(be, b.act_half.data(), num_tokens, b.sublayer.data());
      } else {
        be.add_rms_norm(b.residual.data(), b.sublayer.data(), layer.post_attn_norm.data(),
                        num_tokens, kHidden, kEps, b.normed.data());
        be.gate_up_swiglu(b.normed.data(), num_tokens, layer.gate_up->int8_view(), b.gate.data());
        layer.down->run(be, b.gate.data(), num_tokens, b.sublayer.data());
      }
    }
    be.add_rms_norm(b.residual.data(), b.sublayer.data(), final_norm_.data(), num_tokens, kHidden,
                    kEps, b.normed.data());
    be.gather_rows(b.normed.data(), b.last_rows.data(), num_seqs, kHidden, b.last.data());
    lm_head_->run(be, b.last.data(), num_seqs, b.logits.data());
    be.argmax(b.logits.data(), num_seqs, kVocab, b.next_tokens.data());
  }

  CudaBackend& backend_;
  bool fused_;
  std::vector<SyntheticLayer> layers_;
  std::unique_ptr<SyntheticLinear> lm_head_;
  DeviceBuffer<float> final_norm_;  // [hidden]
  DeviceBuffer<float> embed_;       // [vocab, hidden]
  DeviceBuffer<float> inv_freq_;    // [head_dim / 2]
};

// Fills the buffers with num_seqs sequences of `context` tokens each, the last new_tokens of
// which are computed this step; sequence s owns blocks s * blocks_per_seq onwards.
void set_batch(StepBuffers& b, int64_t num_seqs, int64_t context, int64_t new_tokens) {
  const int64_t blocks_per_seq = (context + kBlockSize - 1) / kBlockSize;
  std::vector<int32_t> ids, positions, qsl{0}, tables(num_seqs * blocks_per_seq), last;
  std::vector<int64_t> slots;
  for (int64_t s = 0; s < num_seqs; ++s) {
    for (int64_t i = 0; i < blocks_per_seq; ++i) {
      tables[s * blocks_per_seq + i] = static_cast<int32_t>(s * blocks_per_seq + i);
    }
    for (int64_t p = context - new_tokens; p < context; ++p) {
      ids.push_back(static_cast<int32_t>((s * 7919 + p * 104729) % kVocab));
      positions.push_back(static_cast<int32_t>(p));
      slots.push_back((s * blocks_per_seq + p / kBlockSize) * kBlockSize + p % kBlockSize);
    }
    qsl.push_back(static_cast<int32_t>(ids.size()));
    last.push_back(static_cast<int32_t>(ids.size() - 1));
  }
  b.token_ids.copy_from_host(ids.data(), ids.size());
  b.positions.copy_from_host(positions.data(), positions.size());
  b.slot_mapping.copy_from_host(slots.data(), slots.size());
  b.query_start_loc.copy_from_host(qsl.data(), qsl.size());
  b.block_tables.copy_from_host(tables.data(), tables.size());
  b.last_rows.copy_from_host(last.data(), last.size());
  b.batch = AttentionBatch{num_seqs,
                           static_cast<int64_t>(ids.size()),
                           b.query_start_loc.data(),
                           b.positions.data(),
                           b.slot_mapping.data(),
                           b.block_tables.data(),
                           blocks_per_seq,
                           kHeads,
                           kKvHeads,
                           kHeadDim};
}

}  // namespace tidal::bench::gpu
