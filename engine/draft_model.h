// The draft-model drafter: a smaller model (any config with the target's vocabulary, or the
// target truncated to its first layers) proposes k tokens per decoding request, one batched
// draft forward per token.
//
// Its KV lives in an arena of its own shape with as many blocks as the target's, indexed by the
// TARGET's block tables: the scheduler already reserved slots up to the last draft position, so
// the draft needs no block manager. The draft's cache of a request is valid up to
// num_cached(request); the first draft forward of a step catches up from there (the whole
// context after admission or preemption), later ones feed one proposed token each. After
// verification the valid length is cut to the accepted tokens.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/kv_cache.h"
#include "kernels/sampling.h"
#include "models/communicator.h"
#include "models/model_weights.h"
#include "models/paged_forward.h"
#include "models/quantize_weights.h"

namespace tidal::engine {

struct DraftRequest {
  int64_t request_id = 0;
  std::span<const int32_t> token_ids;    // [num known tokens] prompt + generated
  std::span<const int32_t> block_table;  // target's table; covers num known + k - 1 positions
  int32_t num_draft_tokens = 0;          // k >= 1
  kernels::SamplingRng* rng = nullptr;   // the request's RNG (stochastic drafting only)
};

struct DraftProposal {
  std::vector<int32_t> tokens;  // [k]
  std::vector<float> probs;     // [k, vocab] draft distributions; empty when greedy
};

class DraftModel {
 public:
  // `weights`: unsharded fp32 (consumed), quantized like the target. InputError when its
  // vocabulary differs from `target` or it cannot hold max_model_len positions.
  DraftModel(models::ModelWeights weights, const models::ModelConfig& target,
             const models::QuantSpec& quant, int num_threads, int64_t num_blocks,
             int32_t block_size, kernels::KvDType kv_dtype, int64_t max_model_len);

  const models::ModelWeights& weights() const { return weights_; }
  size_t arena_bytes() const { return arena_.bytes(); }

  // Greedy drafts (temperature 0) or drafts sampled from the draft's sampling distribution.
  // Replaces `proposals` ([requests.size()]).
  void propose(std::span<const DraftRequest> requests, const kernels::SamplingParams& sampling,
               std::vector<DraftProposal>& proposals);

  // The target kept `num_computed_tokens` of the request after verification.
  void on_verified(int64_t request_id, int64_t num_computed_tokens);
  // The request was preempted or finished: its draft cache is void.
  void forget(int64_t request_id) { num_cached_.erase(request_id); }
  int64_t num_cached(int64_t request_id) const;

 private:
  models::ModelWeights weights_;
  kernels::cpu::CpuBackend backend_;
  models::SingleRankCommunicator comm_;
  models::PagedModel model_;
  kernels::KvArena arena_;
  std::map<int64_t, int64_t> num_cached_;  // request id -> draft KV valid for [0, n)
};

// The target truncated to its first `num_layers` layers (fp32 copy; same embeddings, final norm
// and head).
models::ModelWeights truncate_layers(const models::ModelWeights& full, int64_t num_layers);

}  // namespace tidal::engine
