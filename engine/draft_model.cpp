#include "engine/draft_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "base/input_error.h"
#include "models/memory_footprint.h"

namespace tidal::engine {

namespace {

models::ModelWeights checked(models::ModelWeights weights, const models::ModelConfig& target,
                             const models::QuantSpec& quant, int64_t max_model_len) {
  const models::ModelConfig& c = weights.config;
  if (c.vocab_size != target.vocab_size) {
    throw InputError("--spec: the draft model's vocab_size " + std::to_string(c.vocab_size) +
                     " differs from the target's " + std::to_string(target.vocab_size));
  }
  if (c.max_position_embeddings < max_model_len) {
    throw InputError("--spec: the draft model's max_position_embeddings " +
                     std::to_string(c.max_position_embeddings) + " is below max_model_len " +
                     std::to_string(max_model_len));
  }
  models::quantize_weights(weights, quant);
  return weights;
}

}  // namespace

models::ModelWeights truncate_layers(const models::ModelWeights& full, int64_t num_layers) {
  if (num_layers < 1 || num_layers > full.config.num_layers || full.shard.world_size != 1) {
    throw std::invalid_argument("truncate_layers: needs full weights and 1 <= layers <= " +
                                std::to_string(full.config.num_layers));
  }
  models::ModelWeights draft;
  draft.config = full.config;
  draft.config.num_layers = num_layers;
  draft.shard = full.shard;
  draft.embed_tokens = full.embed_tokens;
  draft.layers.assign(full.layers.begin(), full.layers.begin() + num_layers);
  draft.final_norm = full.final_norm;
  draft.lm_head = full.lm_head;
  return draft;
}

DraftModel::DraftModel(models::ModelWeights weights, const models::ModelConfig& target,
                       const models::QuantSpec& quant, int num_threads, int64_t num_blocks,
                       int32_t block_size, kernels::KvDType kv_dtype, int64_t max_model_len)
    : weights_(checked(std::move(weights), target, quant, max_model_len)),
      backend_(num_threads),
      model_(weights_, backend_, comm_),
      arena_(models::kv_cache_spec(weights_, num_blocks, block_size, kv_dtype)) {}

int64_t DraftModel::num_cached(int64_t request_id) const {
  const auto it = num_cached_.find(request_id);
  return it == num_cached_.end() ? 0 : it->second;
}

void DraftModel::on_verified(int64_t request_id, int64_t num_computed_tokens) {
  const auto it = num_cached_.find(request_id);
  if (it != num_cached_.end() && it->second > num_computed_tokens) it->second = num_computed_tokens;
}

void DraftModel::propose(std::span<const DraftRequest> requests,
                         const kernels::SamplingParams& sampling,
                         std::vector<DraftProposal>& proposals) {
  const int64_t vocab = weights_.config.vocab_size;
  const int64_t block_size = arena_.spec().block_size;
  const bool greedy = sampling.temperature == 0.0f;
  proposals.assign(requests.size(), DraftProposal{});
  int32_t max_k = 0;
  for (const DraftRequest& r : requests) max_k = std::max(max_k, r.num_draft_tokens);

  models::ForwardBatch batch;
  std::vector<size_t> members;  // [batch size] index into requests of each batch sequence
  std::vector<float> probs;     // [vocab]
  for (int32_t step = 0; step < max_k; ++step) {
    batch.sequences.clear();
    members.clear();
    for (size_t i = 0; i < requests.size(); ++i) {
      const DraftRequest& r = requests[i];
      if (step >= r.num_draft_tokens) continue;
      const auto num_known = static_cast<int64_t>(r.token_ids.size());
      // Step 0 catches the draft cache up to the last known token; later steps feed the
      // previous proposal.
      const int64_t first =
          step == 0 ? std::min(num_cached(r.request_id), num_known - 1) : num_known - 1 + step;
      const int64_t last = num_known - 1 + step;  // position of the last token fed
      models::SequenceInput seq;
      for (int64_t p = first; p <= last; ++p) {
        seq.token_ids.push_back(p < num_known ? r.token_ids[static_cast<size_t>(p)]
                                              : proposals[i].tokens.back());
        seq.positions.push_back(static_cast<int32_t>(p));
        seq.slot_mapping.push_back(
            static_cast<int64_t>(r.block_table[static_cast<size_t>(p / block_size)]) * block_size +
            p % block_size);
      }
      seq.block_table.assign(r.block_table.begin(), r.block_table.end());
      batch.sequences.push_back(std::move(seq));
      members.push_back(i);
      num_cached_[r.request_id] = last + 1;
    }
    const std::vector<float> logits = model_.forward(batch, arena_.view());  // [batch, vocab]
    for (size_t b = 0; b < members.size(); ++b) {
      const DraftRequest& r = requests[members[b]];
      DraftProposal& proposal = proposals[members[b]];
      const float* row = logits.data() + b * vocab;
      if (greedy) {
        proposal.tokens.push_back(kernels::argmax(row, vocab));
        continue;
      }
      probs.resize(static_cast<size_t>(vocab));
      kernels::sampling_distribution(row, vocab, sampling, probs.data());
      proposal.tokens.push_back(
          kernels::sample_from_distribution(probs.data(), vocab, r.rng->uniform()));
      proposal.probs.insert(proposal.probs.end(), probs.begin(), probs.end());
    }
  }
}

}  // namespace tidal::engine
