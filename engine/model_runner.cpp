#include "engine/model_runner.h"

#include <stdexcept>
#include <string>

namespace tidal::engine {

void ModelRunner::execute(const sched::StepPlan& plan, const kv::BlockManager& blocks,
                          std::span<const std::span<const int32_t>> known_tokens,
                          std::span<const std::vector<int32_t>> drafts) {
  vocab_size_ = executor_.model_config().vocab_size;
  const size_t num_seqs = plan.seqs.size();
  batch_.sequences.resize(num_seqs);
  batch_.num_logit_rows.assign(num_seqs, 0);
  first_row_.assign(num_seqs, -1);
  int64_t num_rows_before = 0;  // logits rows of the sequences before this one
  for (size_t i = 0; i < num_seqs; ++i) {
    const sched::ScheduledSeq& s = plan.seqs[i];
    const std::span<const int32_t> known = known_tokens[i];
    const std::vector<int32_t>& draft = drafts[i];
    const auto num_known = static_cast<int64_t>(known.size());
    if (static_cast<int64_t>(draft.size()) != s.num_spec_tokens ||
        s.num_context_tokens + s.num_new_tokens - s.num_spec_tokens > num_known) {
      throw std::logic_error("ModelRunner: request " + std::to_string(s.request_id) +
                             ": plan needs tokens the engine does not have");
    }
    models::SequenceInput& seq = batch_.sequences[i];
    seq.token_ids.clear();
    seq.positions.clear();
    seq.slot_mapping.clear();
    for (int64_t p = s.num_context_tokens; p < s.num_context_tokens + s.num_new_tokens; ++p) {
      seq.token_ids.push_back(p < num_known ? known[static_cast<size_t>(p)]
                                            : draft[static_cast<size_t>(p - num_known)]);
      seq.positions.push_back(static_cast<int32_t>(p));
    }
    blocks.append_slot_mapping(s.request_id, s.num_context_tokens, s.num_new_tokens,
                               seq.slot_mapping);
    const std::span<const int32_t> table = blocks.block_table(s.request_id);
    seq.block_table.assign(table.begin(), table.end());
    if (!s.samples) continue;  // a prefill chunk short of its prompt end: no logits
    batch_.num_logit_rows[i] = static_cast<int32_t>(1 + s.num_spec_tokens);
    first_row_[i] = num_rows_before;
    num_rows_before += 1 + s.num_spec_tokens;
  }
  logits_ = executor_.forward(batch_);
}

}  // namespace tidal::engine
