#include "models/paged_forward.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/rope_frequencies.h"
#include "traces/input_error.h"

namespace tidal::models {

namespace {

// The batch as flat arrays (what the attention kernel reads).
struct FlatBatch {
  std::vector<int32_t> token_ids;        // [num_tokens]
  std::vector<int32_t> positions;        // [num_tokens]
  std::vector<int64_t> slot_mapping;     // [num_tokens]
  std::vector<int32_t> query_start_loc;  // [num_seqs + 1]
  std::vector<int32_t> block_tables;     // [num_seqs, max_blocks_per_seq]
  int64_t max_blocks_per_seq = 0;
};

FlatBatch flatten(const ForwardBatch& batch, const ModelConfig& config,
                  const kernels::KvCacheSpec& spec) {
  FlatBatch flat;
  flat.query_start_loc.push_back(0);
  for (const SequenceInput& seq : batch.sequences) {
    flat.max_blocks_per_seq =
        std::max(flat.max_blocks_per_seq, static_cast<int64_t>(seq.block_table.size()));
  }
  for (size_t s = 0; s < batch.sequences.size(); ++s) {
    const SequenceInput& seq = batch.sequences[s];
    const std::string where = "forward batch: sequence " + std::to_string(s) + ": ";
    const size_t n = seq.token_ids.size();
    if (n == 0 || seq.positions.size() != n || seq.slot_mapping.size() != n) {
      throw std::invalid_argument(where +
                                  "token_ids, positions and slot_mapping need the same "
                                  "non-zero length");
    }
    for (size_t i = 0; i < n; ++i) {
      if (seq.token_ids[i] < 0 || seq.token_ids[i] >= config.vocab_size) {
        throw InputError(where + "token_ids[" + std::to_string(i) +
                         "]: " + std::to_string(seq.token_ids[i]) + " is outside the vocabulary (" +
                         std::to_string(config.vocab_size) + ")");
      }
      if (seq.positions[i] >= config.max_position_embeddings) {
        throw InputError(where + "positions[" + std::to_string(i) + "]: " +
                         std::to_string(seq.positions[i]) + " is beyond max_position_embeddings (" +
                         std::to_string(config.max_position_embeddings) + ")");
      }
      if (seq.positions[i] < 0 ||
          seq.positions[i] / spec.block_size >= static_cast<int64_t>(seq.block_table.size()) ||
          seq.slot_mapping[i] >= spec.num_blocks * spec.block_size) {
        throw std::invalid_argument(where + "position " + std::to_string(seq.positions[i]) +
                                    " or slot " + std::to_string(seq.slot_mapping[i]) +
                                    " outside its block table / the arena");
      }
    }
    for (int32_t block : seq.block_table) {
      if (block < 0 || block >= spec.num_blocks) {
        throw std::invalid_argument(where + "block id " + std::to_string(block) +
                                    " outside the arena");
      }
    }
    flat.token_ids.insert(flat.token_ids.end(), seq.token_ids.begin(), seq.token_ids.end());
    flat.positions.insert(flat.positions.end(), seq.positions.begin(), seq.positions.end());
    flat.slot_mapping.insert(flat.slot_mapping.end(), seq.slot_mapping.begin(),
                             seq.slot_mapping.end());
    flat.query_start_loc.push_back(static_cast<int32_t>(flat.token_ids.size()));
    flat.block_tables.insert(flat.block_tables.end(), seq.block_table.begin(),
                             seq.block_table.end());
    flat.block_tables.resize((s + 1) * flat.max_blocks_per_seq, 0);
  }
  return flat;
}

kernels::LinearView f32_view(const std::vector<float>& values, int64_t rows, int64_t cols) {
  kernels::LinearView view;
  view.rows = rows;
  view.cols = cols;
  view.group_size = cols;
  view.data = values.data();
  return view;
}

// SwiGLU MLP of one expert (or the dense MLP) on num_tokens rows: out = down(silu(gate x) * up x)
void run_mlp(kernels::Backend& backend, const ExpertWeights& mlp, const float* x,
             int64_t num_tokens, float* out) {
  const int64_t inter = mlp.gate.rows;
  std::vector<float> gate(num_tokens * inter);  // [num_tokens, intermediate (per rank)]
  std::vector<float> up(num_tokens * inter);    // [num_tokens, intermediate (per rank)]
  backend.linear(x, num_tokens, mlp.gate.view(), gate.data());
  backend.linear(x, num_tokens, mlp.up.view(), up.data());
  backend.swiglu(gate.data(), up.data(), num_tokens * inter, gate.data());
  backend.linear(gate.data(), num_tokens, mlp.down.view(), out);
}

// Mixtral MoE: route each token to its top-k experts, run each expert on its tokens, and add
// the weighted outputs (per token in ascending expert order). The routing is read on the host.
void run_moe(kernels::Backend& backend, const LayerWeights& layer, const ModelConfig& c,
             const float* x, int64_t num_tokens, float* out) {
  const int64_t num_experts = c.num_local_experts;
  const int64_t top_k = c.num_experts_per_tok;
  const int64_t hidden = c.hidden_size;
  std::vector<float> router_logits(num_tokens * num_experts);  // [num_tokens, num_experts]
  backend.linear(x, num_tokens, f32_view(layer.router, num_experts, hidden), router_logits.data());
  std::vector<int32_t> expert_ids(num_tokens * top_k);    // [num_tokens, top_k]
  std::vector<float> expert_weights(num_tokens * top_k);  // [num_tokens, top_k]
  backend.moe_route(router_logits.data(), num_tokens, num_experts, top_k, expert_ids.data(),
                    expert_weights.data());
  std::fill(out, out + num_tokens * hidden, 0.0f);
  std::vector<int32_t> rows;      // [tokens routed to the expert]
  std::vector<float> weights;     // [tokens routed to the expert]
  std::vector<float> expert_in;   // [tokens routed to the expert, hidden]
  std::vector<float> expert_out;  // [tokens routed to the expert, hidden]
  for (int64_t e = 0; e < num_experts; ++e) {
    rows.clear();
    weights.clear();
    for (int64_t i = 0; i < num_tokens * top_k; ++i) {
      if (expert_ids[i] == e) {
        rows.push_back(static_cast<int32_t>(i / top_k));
        weights.push_back(expert_weights[i]);
      }
    }
    if (rows.empty()) continue;
    const int64_t n = static_cast<int64_t>(rows.size());
    expert_in.resize(n * hidden);
    expert_out.resize(n * hidden);
    backend.gather_rows(x, rows.data(), n, hidden, expert_in.data());
    run_mlp(backend, layer.experts[e], expert_in.data(), n, expert_out.data());
    backend.scatter_add_rows(expert_out.data(), rows.data(), weights.data(), n, hidden, out);
  }
}

}  // namespace

PagedModel::PagedModel(const ModelWeights& weights, kernels::Backend& backend, Communicator& comm)
    : weights_(weights),
      backend_(backend),
      comm_(comm),
      inv_freq_(kernels::rope_inv_freq(weights.config.head_dim, weights.config.rope_theta,
                                       weights.config.rope_scaling)) {
  if (comm.world_size() != weights.shard.world_size || comm.rank() != weights.shard.rank) {
    throw std::invalid_argument("PagedModel: communicator rank/world size differ from the shard");
  }
}

std::vector<float> PagedModel::forward(const ForwardBatch& batch, const kernels::KvCacheView& kv) {
  const ModelConfig& c = weights_.config;
  const ShardInfo& shard = weights_.shard;
  if (kv.spec.num_layers != c.num_layers || kv.spec.num_kv_heads != shard.num_kv_heads ||
      kv.spec.head_dim != c.head_dim) {
    throw std::invalid_argument("PagedModel: KV arena spec does not match the model (shard)");
  }
  if (batch.sequences.empty()) return {};
  const FlatBatch flat = flatten(batch, c, kv.spec);
  const int64_t num_tokens = static_cast<int64_t>(flat.token_ids.size());
  const int64_t num_seqs = static_cast<int64_t>(batch.sequences.size());
  const int64_t hidden = c.hidden_size;
  const int64_t d = c.head_dim;
  const int64_t q_width = shard.num_heads * d;
  const int64_t kv_width = shard.num_kv_heads * d;
  const float eps = static_cast<float>(c.rms_eps);

  kernels::AttentionBatch attention;
  attention.num_seqs = num_seqs;
  attention.num_tokens = num_tokens;
  attention.query_start_loc = flat.query_start_loc.data();
  attention.positions = flat.positions.data();
  attention.slot_mapping = flat.slot_mapping.data();
  attention.block_tables = flat.block_tables.data();
  attention.max_blocks_per_seq = flat.max_blocks_per_seq;
  attention.num_heads = shard.num_heads;
  attention.num_kv_heads = shard.num_kv_heads;
  attention.head_dim = d;

  std::vector<float> residual(num_tokens * hidden);   // [num_tokens, hidden]
  std::vector<float> normed(num_tokens * hidden);     // [num_tokens, hidden]
  std::vector<float> sublayer(num_tokens * hidden);   // [num_tokens, hidden] o_proj / MLP out
  std::vector<float> q(num_tokens * q_width);         // [num_tokens, num_heads, head_dim]
  std::vector<float> k(num_tokens * kv_width);        // [num_tokens, num_kv_heads, head_dim]
  std::vector<float> v(num_tokens * kv_width);        // [num_tokens, num_kv_heads, head_dim]
  std::vector<float> attn_out(num_tokens * q_width);  // [num_tokens, num_heads, head_dim]

  backend_.embedding(weights_.embed_tokens.data(), hidden, flat.token_ids.data(), num_tokens,
                     residual.data());
  for (int64_t l = 0; l < c.num_layers; ++l) {
    const LayerWeights& layer = weights_.layers[l];
    // Pre-norm of the attention; from layer 1 on, fused with adding the previous MLP output.
    if (l == 0) {
      backend_.rms_norm(residual.data(), layer.input_norm.data(), num_tokens, hidden, eps,
                        normed.data());
    } else {
      backend_.add_rms_norm(residual.data(), sublayer.data(), layer.input_norm.data(), num_tokens,
                            hidden, eps, normed.data());
    }
    backend_.linear(normed.data(), num_tokens, layer.q_proj.view(), q.data());
    backend_.linear(normed.data(), num_tokens, layer.k_proj.view(), k.data());
    backend_.linear(normed.data(), num_tokens, layer.v_proj.view(), v.data());
    backend_.rope(q.data(), k.data(), flat.positions.data(), num_tokens, shard.num_heads,
                  shard.num_kv_heads, d, inv_freq_.data());
    backend_.write_kv(kv, l, k.data(), v.data(), flat.slot_mapping.data(), num_tokens);
    backend_.paged_attention(q.data(), kv, l, attention, 1.0f / std::sqrt(static_cast<float>(d)),
                             attn_out.data());
    backend_.linear(attn_out.data(), num_tokens, layer.o_proj.view(), sublayer.data());
    comm_.all_reduce_sum(sublayer.data(), sublayer.size());  // row-parallel o_proj

    backend_.add_rms_norm(residual.data(), sublayer.data(), layer.post_attn_norm.data(), num_tokens,
                          hidden, eps, normed.data());
    if (c.is_moe()) {
      run_moe(backend_, layer, c, normed.data(), num_tokens, sublayer.data());
    } else {
      run_mlp(backend_, layer.mlp, normed.data(), num_tokens, sublayer.data());
    }
    comm_.all_reduce_sum(sublayer.data(), sublayer.size());  // row-parallel down_proj
  }
  backend_.add_rms_norm(residual.data(), sublayer.data(), weights_.final_norm.data(), num_tokens,
                        hidden, eps, normed.data());

  // LM head on the rows whose logits are wanted.
  const float* head_in = normed.data();
  int64_t num_rows = num_tokens;
  std::vector<float> last_rows;  // [num_seqs, hidden]
  if (!batch.all_logits) {
    std::vector<int32_t> last(num_seqs);  // [num_seqs]
    for (int64_t s = 0; s < num_seqs; ++s) last[s] = flat.query_start_loc[s + 1] - 1;
    last_rows.resize(num_seqs * hidden);
    backend_.gather_rows(normed.data(), last.data(), num_seqs, hidden, last_rows.data());
    head_in = last_rows.data();
    num_rows = num_seqs;
  }
  std::vector<float> logits(num_rows * c.vocab_size);  // [num_rows, vocab]
  backend_.linear(head_in, num_rows, weights_.lm_head_view(), logits.data());
  return logits;
}

}  // namespace tidal::models
