#include "perf/attention_dp.h"

namespace tidal::perf {

void RankSplit::split(std::span<const SeqWork> batch, int32_t num_ranks) {
  offsets_.assign(static_cast<std::size_t>(num_ranks) + 1, 0);
  int64_t num_seqs = 0;
  for (const SeqWork& seq : batch) {
    if (seq.num_new_tokens > 0) ++num_seqs;
  }
  // Rank r gets the sequences r, r + num_ranks, ...: ceil((num_seqs - r) / num_ranks) of them.
  for (int32_t r = 0; r < num_ranks; ++r) {
    const int64_t count = num_seqs > r ? (num_seqs - r + num_ranks - 1) / num_ranks : 0;
    offsets_[static_cast<std::size_t>(r) + 1] = offsets_[static_cast<std::size_t>(r)] + count;
  }
  seqs_.resize(static_cast<std::size_t>(num_seqs));
  int64_t index = 0;  // among the sequences with new tokens
  for (const SeqWork& seq : batch) {
    if (seq.num_new_tokens <= 0) continue;
    const int64_t r = index % num_ranks;
    const int64_t slot = offsets_[static_cast<std::size_t>(r)] + index / num_ranks;
    seqs_[static_cast<std::size_t>(slot)] = seq;
    ++index;
  }
}

std::span<const SeqWork> RankSplit::rank(int32_t r) const {
  const int64_t begin = offsets_[static_cast<std::size_t>(r)];
  const int64_t end = offsets_[static_cast<std::size_t>(r) + 1];
  return std::span<const SeqWork>(seqs_).subspan(static_cast<std::size_t>(begin),
                                                 static_cast<std::size_t>(end - begin));
}

}  // namespace tidal::perf
