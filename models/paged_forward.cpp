#include "models/paged_forward.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "base/input_error.h"
#include "kernels/rope_frequencies.h"

namespace tidal::models {

PagedModel::Workspace::Workspace(kernels::BackendMemory& memory)
    : token_ids(memory),
      positions(memory),
      slot_mapping(memory),
      query_start_loc(memory),
      block_tables(memory),
      logit_rows(memory),
      residual(memory),
      normed(memory),
      sublayer(memory),
      q(memory),
      attn_out(memory),
      k(memory),
      v(memory),
      gate(memory),
      up(memory),
      head_in(memory),
      logits(memory),
      router_logits(memory),
      expert_ids(memory),
      expert_weights(memory),
      routed_rows(memory),
      routed_weights(memory),
      expert_in(memory),
      expert_out(memory) {}

PagedModel::PagedModel(const ModelWeights& weights, kernels::Backend& backend, Communicator& comm)
    : PagedModel(host_views(weights), backend, comm, backend.memory()) {
  if (!memory_.is_host()) {
    throw std::invalid_argument(
        "PagedModel: host weights on a backend without host memory; copy them first "
        "(models::DeviceWeights)");
  }
}

PagedModel::PagedModel(ModelWeightViews weights, kernels::Backend& backend, Communicator& comm,
                       kernels::BackendMemory& memory)
    : weights_(std::move(weights)),
      backend_(backend),
      comm_(comm),
      memory_(memory),
      inv_freq_(memory),
      ws_(memory) {
  if (comm.world_size() != weights_.shard.world_size || comm.rank() != weights_.shard.rank) {
    throw std::invalid_argument("PagedModel: communicator rank/world size differ from the shard");
  }
  const ModelConfig& c = weights_.config;
  const std::vector<float> inv_freq =
      kernels::rope_inv_freq(c.head_dim, c.rope_theta, c.rope_scaling);  // [head_dim / 2]
  inv_freq_.upload(inv_freq.data(), inv_freq.size());
  memory_.synchronize();  // `inv_freq` goes out of scope
}

std::vector<int32_t> all_logit_rows(const ForwardBatch& batch) {
  std::vector<int32_t> num_rows;  // [num_seqs]
  num_rows.reserve(batch.sequences.size());
  for (const SequenceInput& seq : batch.sequences) {
    num_rows.push_back(static_cast<int32_t>(seq.token_ids.size()));
  }
  return num_rows;
}

void PagedModel::flatten(const ForwardBatch& batch, const kernels::KvCacheSpec& spec,
                         int64_t pad_to, int64_t table_width) {
  const ModelConfig& config = weights_.config;
  FlatBatch& flat = flat_;
  flat.token_ids.clear();
  flat.positions.clear();
  flat.slot_mapping.clear();
  flat.query_start_loc.assign(1, 0);
  flat.block_tables.clear();
  flat.logit_rows.clear();
  flat.max_blocks_per_seq = 0;
  if (!batch.num_logit_rows.empty() && batch.num_logit_rows.size() != batch.sequences.size()) {
    throw std::invalid_argument("forward batch: num_logit_rows has " +
                                std::to_string(batch.num_logit_rows.size()) + " entries for " +
                                std::to_string(batch.sequences.size()) + " sequences");
  }
  for (const SequenceInput& seq : batch.sequences) {
    flat.max_blocks_per_seq =
        std::max(flat.max_blocks_per_seq, static_cast<int64_t>(seq.block_table.size()));
  }
  if (table_width > 0) flat.max_blocks_per_seq = table_width;  // the caller checked it fits
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
    const int32_t num_rows = batch.num_logit_rows.empty() ? 1 : batch.num_logit_rows[s];
    if (num_rows < 0 || static_cast<size_t>(num_rows) > n) {
      throw std::invalid_argument(where + "num_logit_rows " + std::to_string(num_rows) +
                                  " outside 0.." + std::to_string(n));
    }
    const auto first_new_row = static_cast<int32_t>(flat.token_ids.size());
    for (auto row = static_cast<int32_t>(n) - num_rows; row < static_cast<int32_t>(n); ++row) {
      flat.logit_rows.push_back(first_new_row + row);
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
  for (auto s = static_cast<int64_t>(batch.sequences.size()); s < pad_to; ++s) {
    flat.token_ids.push_back(0);
    flat.positions.push_back(0);
    flat.slot_mapping.push_back(-1);  // write_kv skips it, attention answers zeros
    flat.query_start_loc.push_back(static_cast<int32_t>(flat.token_ids.size()));
    flat.block_tables.resize(static_cast<size_t>((s + 1) * flat.max_blocks_per_seq), 0);
  }
}

template <typename T>
const T* PagedModel::on_backend(kernels::BackendBuffer& buffer, const std::vector<T>& host,
                                bool copy) {
  if (memory_.is_host() && !copy) return host.data();
  return buffer.upload(host.data(), host.size());
}

// SwiGLU MLP of one expert (or the dense MLP) on num_tokens rows: out = down(silu(gate x) * up x)
void PagedModel::run_mlp(Workspace& ws, const ExpertViews& mlp, const float* x, int64_t num_tokens,
                         float* out) {
  const auto count = static_cast<size_t>(num_tokens * mlp.gate.rows);
  float* gate = ws.gate.as<float>(count);  // [num_tokens, intermediate (per rank)]
  float* up = ws.up.as<float>(count);      // [num_tokens, intermediate (per rank)]
  backend_.linear(x, num_tokens, mlp.gate, gate);
  backend_.linear(x, num_tokens, mlp.up, up);
  backend_.swiglu(gate, up, static_cast<int64_t>(count), gate);
  backend_.linear(gate, num_tokens, mlp.down, out);
}

// Mixtral MoE: route each token to its top-k experts, run each expert on its tokens, and add
// the weighted outputs (per token in ascending expert order). The routing is read on the host.
void PagedModel::run_moe(Workspace& ws, const LayerViews& layer, const float* x, int64_t num_tokens,
                         float* out) {
  const ModelConfig& c = weights_.config;
  const int64_t num_experts = c.num_local_experts;
  const int64_t top_k = c.num_experts_per_tok;
  const int64_t hidden = c.hidden_size;
  const auto num_routed = static_cast<size_t>(num_tokens * top_k);
  float* router_logits = ws.router_logits.as<float>(static_cast<size_t>(num_tokens * num_experts));
  backend_.linear(x, num_tokens, layer.router, router_logits);      // [num_tokens, num_experts]
  int32_t* expert_ids = ws.expert_ids.as<int32_t>(num_routed);      // [num_tokens, top_k]
  float* expert_weights = ws.expert_weights.as<float>(num_routed);  // [num_tokens, top_k]
  backend_.moe_route(router_logits, num_tokens, num_experts, top_k, expert_ids, expert_weights);
  host_expert_ids_.resize(num_routed);
  host_expert_weights_.resize(num_routed);
  memory_.copy_to_host(host_expert_ids_.data(), expert_ids, num_routed * sizeof(int32_t));
  memory_.copy_to_host(host_expert_weights_.data(), expert_weights, num_routed * sizeof(float));

  // Rows and weights of every expert's tokens, grouped by expert: expert e owns
  // [expert_begin[e], expert_begin[e + 1]).
  host_routed_rows_.clear();
  host_routed_weights_.clear();
  std::vector<size_t> expert_begin(static_cast<size_t>(num_experts) + 1, 0);  // [num_experts + 1]
  for (int64_t e = 0; e < num_experts; ++e) {
    expert_begin[static_cast<size_t>(e)] = host_routed_rows_.size();
    for (size_t i = 0; i < num_routed; ++i) {
      if (host_expert_ids_[i] == e) {
        host_routed_rows_.push_back(static_cast<int32_t>(static_cast<int64_t>(i) / top_k));
        host_routed_weights_.push_back(host_expert_weights_[i]);
      }
    }
  }
  expert_begin[static_cast<size_t>(num_experts)] = host_routed_rows_.size();
  const int32_t* rows = on_backend(ws.routed_rows, host_routed_rows_);
  const float* weights = on_backend(ws.routed_weights, host_routed_weights_);

  memory_.fill_zero(out, static_cast<size_t>(num_tokens * hidden) * sizeof(float));
  for (int64_t e = 0; e < num_experts; ++e) {
    const size_t begin = expert_begin[static_cast<size_t>(e)];
    const auto n = static_cast<int64_t>(expert_begin[static_cast<size_t>(e) + 1] - begin);
    if (n == 0) continue;
    float* expert_in = ws.expert_in.as<float>(static_cast<size_t>(n * hidden));    // [n, hidden]
    float* expert_out = ws.expert_out.as<float>(static_cast<size_t>(n * hidden));  // [n, hidden]
    backend_.gather_rows(x, rows + begin, n, hidden, expert_in);
    run_mlp(ws, layer.experts[static_cast<size_t>(e)], expert_in, n, expert_out);
    backend_.scatter_add_rows(expert_out, rows + begin, weights + begin, n, hidden, out);
  }
}

PagedModel::StepInputs PagedModel::upload_inputs(Workspace& ws, bool copy) {
  const FlatBatch& flat = flat_;
  const ShardInfo& shard = weights_.shard;
  StepInputs in;
  in.token_ids = on_backend(ws.token_ids, flat.token_ids, copy);
  in.positions = on_backend(ws.positions, flat.positions, copy);
  in.slot_mapping = on_backend(ws.slot_mapping, flat.slot_mapping, copy);
  kernels::AttentionBatch& attention = in.attention;
  attention.num_seqs = static_cast<int64_t>(flat.query_start_loc.size()) - 1;
  attention.num_tokens = static_cast<int64_t>(flat.token_ids.size());
  attention.query_start_loc = on_backend(ws.query_start_loc, flat.query_start_loc, copy);
  attention.positions = in.positions;
  attention.slot_mapping = in.slot_mapping;
  attention.block_tables = on_backend(ws.block_tables, flat.block_tables, copy);
  attention.max_blocks_per_seq = flat.max_blocks_per_seq;
  attention.num_heads = shard.num_heads;
  attention.num_kv_heads = shard.num_kv_heads;
  attention.head_dim = weights_.config.head_dim;
  return in;
}

float* PagedModel::run_layers(Workspace& ws, const StepInputs& in, const kernels::KvCacheView& kv) {
  const ModelConfig& c = weights_.config;
  const ShardInfo& shard = weights_.shard;
  const int64_t num_tokens = in.attention.num_tokens;
  const int64_t hidden = c.hidden_size;
  const int64_t d = c.head_dim;
  const int64_t q_width = shard.num_heads * d;
  const int64_t kv_width = shard.num_kv_heads * d;
  const float eps = static_cast<float>(c.rms_eps);
  const auto rows_of = [num_tokens](int64_t width) {
    return static_cast<size_t>(num_tokens * width);
  };

  float* residual = ws.residual.as<float>(rows_of(hidden));  // [num_tokens, hidden]
  float* normed = ws.normed.as<float>(rows_of(hidden));      // [num_tokens, hidden]
  float* sublayer = ws.sublayer.as<float>(rows_of(hidden));  // [num_tokens, hidden] o / MLP out
  float* q = ws.q.as<float>(rows_of(q_width));               // [num_tokens, num_heads, head_dim]
  float* k = ws.k.as<float>(rows_of(kv_width));              // [num_tokens, num_kv_heads, head_dim]
  float* v = ws.v.as<float>(rows_of(kv_width));              // [num_tokens, num_kv_heads, head_dim]
  float* attn_out = ws.attn_out.as<float>(rows_of(q_width));  // [num_tokens, num_heads, head_dim]
  const auto* inv_freq = static_cast<const float*>(inv_freq_.data());  // [head_dim / 2]

  backend_.embedding(weights_.embed_tokens, hidden, in.token_ids, num_tokens, residual);
  for (int64_t l = 0; l < c.num_layers; ++l) {
    const LayerViews& layer = weights_.layers[static_cast<size_t>(l)];
    // Pre-norm of the attention; from layer 1 on, fused with adding the previous MLP output.
    if (l == 0) {
      backend_.rms_norm(residual, layer.input_norm, num_tokens, hidden, eps, normed);
    } else {
      backend_.add_rms_norm(residual, sublayer, layer.input_norm, num_tokens, hidden, eps, normed);
    }
    backend_.linear(normed, num_tokens, layer.q_proj, q);
    backend_.linear(normed, num_tokens, layer.k_proj, k);
    backend_.linear(normed, num_tokens, layer.v_proj, v);
    backend_.rope(q, k, in.positions, num_tokens, shard.num_heads, shard.num_kv_heads, d, inv_freq);
    backend_.write_kv(kv, l, k, v, in.slot_mapping, num_tokens);
    backend_.paged_attention(q, kv, l, in.attention, 1.0f / std::sqrt(static_cast<float>(d)),
                             attn_out);
    backend_.linear(attn_out, num_tokens, layer.o_proj, sublayer);
    comm_.all_reduce_sum(sublayer, rows_of(hidden));  // row-parallel o_proj

    backend_.add_rms_norm(residual, sublayer, layer.post_attn_norm, num_tokens, hidden, eps,
                          normed);
    if (c.is_moe()) {
      run_moe(ws, layer, normed, num_tokens, sublayer);
    } else {
      run_mlp(ws, layer.mlp, normed, num_tokens, sublayer);
    }
    comm_.all_reduce_sum(sublayer, rows_of(hidden));  // row-parallel down_proj
  }
  backend_.add_rms_norm(residual, sublayer, weights_.final_norm, num_tokens, hidden, eps, normed);
  return normed;
}

std::vector<float> PagedModel::forward(const ForwardBatch& batch, const kernels::KvCacheView& kv) {
  const ModelConfig& c = weights_.config;
  const ShardInfo& shard = weights_.shard;
  if (kv.spec.num_layers != c.num_layers || kv.spec.num_kv_heads != shard.num_kv_heads ||
      kv.spec.head_dim != c.head_dim) {
    throw std::invalid_argument("PagedModel: KV arena spec does not match the model (shard)");
  }
  if (batch.sequences.empty()) return {};
  if (const int64_t table_width = graph_table_width(batch, kv); table_width > 0) {
    return forward_graphed(batch, kv, table_width);
  }
  flatten(batch, kv.spec);
  const StepInputs in = upload_inputs(ws_, false);
  const float* normed = run_layers(ws_, in, kv);  // [num_tokens, hidden]

  // LM head on the rows whose logits are wanted (all of them: no gather needed).
  const int64_t hidden = c.hidden_size;
  const auto num_rows = static_cast<int64_t>(flat_.logit_rows.size());
  if (num_rows == 0) return {};
  const float* head_in = normed;
  if (num_rows < in.attention.num_tokens) {
    float* wanted = ws_.head_in.as<float>(static_cast<size_t>(num_rows * hidden));
    backend_.gather_rows(normed, on_backend(ws_.logit_rows, flat_.logit_rows), num_rows, hidden,
                         wanted);  // [num_rows, hidden]
    head_in = wanted;
  }
  std::vector<float> logits(static_cast<size_t>(num_rows * c.vocab_size));  // [num_rows, vocab]
  if (memory_.is_host()) {
    backend_.linear(head_in, num_rows, weights_.lm_head, logits.data());
  } else {
    float* device_logits = ws_.logits.as<float>(logits.size());
    backend_.linear(head_in, num_rows, weights_.lm_head, device_logits);
    memory_.copy_to_host(logits.data(), device_logits, logits.size() * sizeof(float));
  }
  return logits;
}

}  // namespace tidal::models
