// The production forward pass: a batch of sequences (what a scheduler plan gives), paged KV,
// every operator through the kernels::Backend interface, optionally one tensor-parallel rank.
// Activations and the step's index arrays live in the backend's memory (grow-only buffers
// reused across steps); only the logits come back to the host.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/backend.h"
#include "kernels/backend_memory.h"
#include "kernels/kv_cache.h"
#include "kernels/step_graphs.h"
#include "models/communicator.h"
#include "models/model_weights.h"
#include "models/weight_views.h"

namespace tidal::models {

// One sequence's new tokens this step. Positions are those of the new tokens (the first is the
// number of tokens already cached); every position 0..positions[i] must be in the cache once
// this step has written the new tokens' K/V.
struct SequenceInput {
  std::vector<int32_t> token_ids;  // [num_new_tokens]
  std::vector<int32_t> positions;  // [num_new_tokens]
  std::vector<int64_t>
      slot_mapping;  // [num_new_tokens]; slot = block * block_size + offset; -1 = padding
  std::vector<int32_t> block_table;  // [num_blocks_of_sequence]
};

struct ForwardBatch {
  std::vector<SequenceInput> sequences;
  // [num_seqs] how many trailing new tokens of each sequence need logits: 1 for a sampling
  // sequence, 1 + num_spec_tokens for a verifying one, 0 for a prefill chunk nobody samples;
  // at most its number of new tokens. Empty: the last new token of every sequence.
  std::vector<int32_t> num_logit_rows;
};

// num_logit_rows asking for every new token of every sequence (what a full-rows check reads).
std::vector<int32_t> all_logit_rows(const ForwardBatch& batch);

class PagedModel {
 public:
  // Host weights (full or one rank's shard) on a backend whose memory is host memory (the CPU
  // backends); weights and backend must outlive the model. comm.world_size() must equal
  // weights.shard.world_size (std::invalid_argument otherwise, and for a non-host backend).
  PagedModel(const ModelWeights& weights, kernels::Backend& backend, Communicator& comm);
  // Weights whose views point into `memory`, the memory `backend` computes on (e.g.
  // DeviceWeights::views() on a CUDA backend, with memory = that backend's memory()). Passing
  // the memory separately lets a decorating backend (a timing wrapper) sit in between.
  PagedModel(ModelWeightViews weights, kernels::Backend& backend, Communicator& comm,
             kernels::BackendMemory& memory);

  const ModelWeightViews& weights() const { return weights_; }

  // Runs the batch, writing the new tokens' K/V into `kv` (spec must match kv_cache_spec of
  // these weights; kv lives in the backend's memory). Returns logits [sum(num_logit_rows), vocab]
  // ([num_seqs, vocab] when num_logit_rows is empty): each sequence's trailing rows in batch
  // order, on the host; the LM head runs on those rows only. InputError for a token id outside
  // the vocabulary or a position beyond max_position_embeddings; std::invalid_argument for
  // inconsistent batch arrays (num_logit_rows included).
  std::vector<float> forward(const ForwardBatch& batch, const kernels::KvCacheView& kv);

  // Decode steps through recorded graphs (nullptr, the default: every step eagerly). A step
  // qualifies when every sequence has one new token and wants its one logits row, the model is
  // dense (MoE routing is read on the host) and graphs->padded_batch_size(num_seqs) > 0: it runs
  // as the graph of that padded size and of its block-table width bucket (the next power of two
  // >= 16 blocks, at most the widest table a position can need), over inputs in a workspace of
  // its own reserved once for graphs->max_batch_size() rows (so eager steps never move it), and
  // returns the real rows' logits. Graphs serve the first KV arena they ran on; steps on another
  // arena, and wider tables, run eagerly. `graphs` must outlive the model.
  void set_step_graphs(kernels::StepGraphs* graphs) { graphs_ = graphs; }

 private:
  // The batch as flat host arrays (what the attention kernel reads), reused across steps.
  struct FlatBatch {
    std::vector<int32_t> token_ids;        // [num_tokens]
    std::vector<int32_t> positions;        // [num_tokens]
    std::vector<int64_t> slot_mapping;     // [num_tokens]
    std::vector<int32_t> query_start_loc;  // [num_seqs + 1]
    std::vector<int32_t> block_tables;     // [num_seqs, max_blocks_per_seq]
    std::vector<int32_t> logit_rows;       // [sum(num_logit_rows)] rows whose logits are wanted
    int64_t max_blocks_per_seq = 0;
  };
  // Grow-only buffers in backend memory, reused across steps.
  struct Workspace {
    explicit Workspace(kernels::BackendMemory& memory);
    kernels::BackendBuffer token_ids, positions, slot_mapping, query_start_loc, block_tables,
        logit_rows;                                      // the FlatBatch arrays
    kernels::BackendBuffer residual, normed, sublayer;   // [num_tokens, hidden]
    kernels::BackendBuffer q, attn_out;                  // [num_tokens, num_heads, head_dim]
    kernels::BackendBuffer k, v;                         // [num_tokens, num_kv_heads, head_dim]
    kernels::BackendBuffer gate, up;                     // [num_tokens, intermediate]
    kernels::BackendBuffer head_in;                      // [sum(num_logit_rows), hidden]
    kernels::BackendBuffer logits;                       // [num_rows, vocab]
    kernels::BackendBuffer router_logits;                // [num_tokens, num_experts]
    kernels::BackendBuffer expert_ids, expert_weights;   // [num_tokens, top_k]
    kernels::BackendBuffer routed_rows, routed_weights;  // [num_tokens * top_k]
    kernels::BackendBuffer expert_in, expert_out;        // [routed tokens of one expert, hidden]
  };

  // Device pointers of one step's flat arrays (in some workspace).
  struct StepInputs {
    const int32_t* token_ids = nullptr;     // [num_tokens]
    const int32_t* positions = nullptr;     // [num_tokens]
    const int64_t* slot_mapping = nullptr;  // [num_tokens]
    kernels::AttentionBatch attention;
  };

  // Validates the batch and fills flat_. pad_to > num_seqs appends one-token padding sequences
  // (token 0, position 0, slot -1, block table of zeros) up to pad_to; table_width > 0 fixes the
  // block-table stride (else the widest table of the batch).
  void flatten(const ForwardBatch& batch, const kernels::KvCacheSpec& spec, int64_t pad_to = 0,
               int64_t table_width = 0);
  // The flat_ arrays in backend memory: `ws`'s buffers, or on host memory flat_ itself unless
  // `copy` (graphs read their inputs from the workspace, whose addresses stay fixed).
  StepInputs upload_inputs(Workspace& ws, bool copy);
  // Embedding, every layer and the final norm; returns the normed rows [num_tokens, hidden].
  float* run_layers(Workspace& ws, const StepInputs& in, const kernels::KvCacheView& kv);
  // Graph path (paged_forward_graphs.cpp): the block-table width bucket of a qualifying step,
  // 0 when the step runs eagerly; the graphed forward; the graph workspace (reserved once).
  int64_t graph_table_width(const ForwardBatch& batch, const kernels::KvCacheView& kv) const;
  std::vector<float> forward_graphed(const ForwardBatch& batch, const kernels::KvCacheView& kv,
                                     int64_t table_width);
  Workspace& graph_workspace(const kernels::KvCacheView& kv);
  int64_t max_table_width(const kernels::KvCacheSpec& spec) const;
  int64_t max_linear_cols() const;
  // The backend pointer of a flat host array: the array itself on host memory, else a copy.
  template <typename T>
  const T* on_backend(kernels::BackendBuffer& buffer, const std::vector<T>& host,
                      bool copy = false);
  void run_mlp(Workspace& ws, const ExpertViews& mlp, const float* x, int64_t num_tokens,
               float* out);
  void run_moe(Workspace& ws, const LayerViews& layer, const float* x, int64_t num_tokens,
               float* out);

  ModelWeightViews weights_;
  kernels::Backend& backend_;
  Communicator& comm_;
  kernels::BackendMemory& memory_;
  kernels::BackendBuffer inv_freq_;  // [head_dim / 2]
  FlatBatch flat_;
  Workspace ws_;
  std::vector<int32_t> host_expert_ids_;    // [num_tokens, top_k]
  std::vector<float> host_expert_weights_;  // [num_tokens, top_k]
  std::vector<int32_t> host_routed_rows_;   // [num_tokens * top_k] grouped by expert
  std::vector<float> host_routed_weights_;  // [num_tokens * top_k] grouped by expert
  kernels::StepGraphs* graphs_ = nullptr;
  std::unique_ptr<Workspace> graph_ws_;  // inputs and activations of graphed steps
  const void* graph_kv_data_ = nullptr;  // the arena the graphs were recorded on
};

}  // namespace tidal::models
