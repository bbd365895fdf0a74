// PagedModel's graph path: decode steps padded to a recorded batch size and replayed (see
// PagedModel::set_step_graphs).
#include <algorithm>
#include <vector>

#include "models/paged_forward.h"

namespace tidal::models {
namespace {

constexpr int64_t kMinGraphTableWidth = 16;  // blocks; narrower tables share this bucket

int64_t next_power_of_two(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

}  // namespace

int64_t PagedModel::max_table_width(const kernels::KvCacheSpec& spec) const {
  const int64_t max_position = weights_.config.max_position_embeddings;
  return std::min((max_position + spec.block_size - 1) / spec.block_size, spec.num_blocks);
}

int64_t PagedModel::max_linear_cols() const {
  const ModelConfig& c = weights_.config;
  const int64_t q_width = weights_.shard.num_heads * c.head_dim;
  int64_t cols = std::max(c.hidden_size, q_width);
  for (const LayerViews& layer : weights_.layers) cols = std::max(cols, layer.mlp.down.cols);
  return cols;
}

int64_t PagedModel::graph_table_width(const ForwardBatch& batch,
                                      const kernels::KvCacheView& kv) const {
  if (graphs_ == nullptr || weights_.config.is_moe()) return 0;
  if (graph_kv_data_ != nullptr && graph_kv_data_ != kv.data) return 0;
  if (graphs_->padded_batch_size(static_cast<int64_t>(batch.sequences.size())) < 0) return 0;
  for (const int32_t num_rows : batch.num_logit_rows) {
    if (num_rows != 1) return 0;
  }
  int64_t widest = 1;
  for (const SequenceInput& seq : batch.sequences) {
    if (seq.token_ids.size() != 1) return 0;
    widest = std::max(widest, static_cast<int64_t>(seq.block_table.size()));
  }
  const int64_t cap = max_table_width(kv.spec);
  const int64_t width = std::min(next_power_of_two(std::max(widest, kMinGraphTableWidth)), cap);
  return widest <= width ? width : 0;
}

PagedModel::Workspace& PagedModel::graph_workspace(const kernels::KvCacheView& kv) {
  if (graph_ws_) return *graph_ws_;
  const ModelConfig& c = weights_.config;
  const ShardInfo& shard = weights_.shard;
  const auto rows = static_cast<size_t>(graphs_->max_batch_size());
  const auto width = [rows](int64_t cols) { return rows * static_cast<size_t>(cols); };
  graph_ws_ = std::make_unique<Workspace>(memory_);
  Workspace& ws = *graph_ws_;
  // Every buffer a graphed step touches, at its largest, so that none ever moves.
  ws.token_ids.as<int32_t>(rows);
  ws.positions.as<int32_t>(rows);
  ws.slot_mapping.as<int64_t>(rows);
  ws.query_start_loc.as<int32_t>(rows + 1);
  ws.block_tables.as<int32_t>(width(max_table_width(kv.spec)));
  ws.residual.as<float>(width(c.hidden_size));
  ws.normed.as<float>(width(c.hidden_size));
  ws.sublayer.as<float>(width(c.hidden_size));
  ws.q.as<float>(width(shard.num_heads * c.head_dim));
  ws.attn_out.as<float>(width(shard.num_heads * c.head_dim));
  ws.k.as<float>(width(shard.num_kv_heads * c.head_dim));
  ws.v.as<float>(width(shard.num_kv_heads * c.head_dim));
  ws.gate.as<float>(width(shard.intermediate_size));
  ws.up.as<float>(width(shard.intermediate_size));
  ws.logits.as<float>(width(c.vocab_size));
  // The backend's scratch at the largest graphed shapes (one row: the most attention splits;
  // every row: the widest activations), so that later captures seldom grow it and make the
  // graphs captured before them stale.
  kernels::AttentionBatch largest;
  largest.max_blocks_per_seq = max_table_width(kv.spec);
  largest.num_heads = shard.num_heads;
  largest.num_kv_heads = shard.num_kv_heads;
  largest.head_dim = c.head_dim;
  for (const int64_t n : {int64_t{1}, graphs_->max_batch_size()}) {
    largest.num_seqs = n;
    largest.num_tokens = n;
    graphs_->reserve(largest, kv.spec.block_size, max_linear_cols());
  }
  graph_kv_data_ = kv.data;
  return ws;
}

std::vector<float> PagedModel::forward_graphed(const ForwardBatch& batch,
                                               const kernels::KvCacheView& kv,
                                               int64_t table_width) {
  const auto num_seqs = static_cast<int64_t>(batch.sequences.size());
  const int64_t padded = graphs_->padded_batch_size(num_seqs);
  const int64_t vocab = weights_.config.vocab_size;
  Workspace& ws = graph_workspace(kv);
  flatten(batch, kv.spec, padded, table_width);
  const StepInputs in = upload_inputs(ws, true);  // fixed addresses: copied before the replay
  float* logits = ws.logits.as<float>(static_cast<size_t>(padded * vocab));  // [padded, vocab]
  if (!graphs_->has(padded, table_width)) {
    graphs_->reserve(in.attention, kv.spec.block_size, max_linear_cols());
    // By value or stable addresses only: an implementation may keep the function.
    graphs_->capture(padded, table_width, [this, &ws, in, kv, padded, logits] {
      const float* normed = run_layers(ws, in, kv);  // [padded, hidden]
      backend_.linear(normed, padded, weights_.lm_head, logits);
    });
  }
  graphs_->replay(padded, table_width);
  std::vector<float> host(static_cast<size_t>(num_seqs * vocab));  // [num_seqs, vocab] real rows
  memory_.copy_to_host(host.data(), logits, host.size() * sizeof(float));
  return host;
}

}  // namespace tidal::models
