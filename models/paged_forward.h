// The production forward pass: a batch of sequences (what a scheduler plan gives), paged KV,
// every operator through the kernels::Backend interface, optionally one tensor-parallel rank.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/backend.h"
#include "kernels/kv_cache.h"
#include "models/communicator.h"
#include "models/model_weights.h"

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
  bool all_logits = false;  // true: logits of every new token (speculative verification)
};

class PagedModel {
 public:
  // weights (full or one rank's shard) and backend must outlive the model;
  // comm.world_size() must equal weights.shard.world_size (std::invalid_argument otherwise).
  PagedModel(const ModelWeights& weights, kernels::Backend& backend, Communicator& comm);

  const ModelWeights& weights() const { return weights_; }

  // Runs the batch, writing the new tokens' K/V into `kv` (spec must match kv_cache_spec of
  // these weights). Returns logits [num_seqs, vocab] (last new token of each sequence) or,
  // with all_logits, [total_new_tokens, vocab] in batch order. InputError for a token id outside
  // the vocabulary or a position beyond max_position_embeddings; std::invalid_argument for
  // inconsistent batch arrays.
  std::vector<float> forward(const ForwardBatch& batch, const kernels::KvCacheView& kv);

 private:
  const ModelWeights& weights_;
  kernels::Backend& backend_;
  Communicator& comm_;
  std::vector<float> inv_freq_;  // [head_dim / 2]
};

}  // namespace tidal::models
