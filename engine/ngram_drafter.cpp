#include "engine/ngram_drafter.h"

#include <algorithm>

namespace tidal::engine {

void NgramDrafter::propose(std::span<const int32_t> tokens, int32_t max_tokens,
                           std::vector<int32_t>& out) const {
  out.clear();
  const auto size = static_cast<int64_t>(tokens.size());
  for (int64_t n = max_n_; n >= min_n_ && max_tokens > 0; --n) {
    if (size <= n) continue;
    const std::span<const int32_t> suffix = tokens.subspan(static_cast<size_t>(size - n));
    // Latest start i < size - n whose n tokens equal the suffix; what follows it is the guess.
    for (int64_t i = size - n - 1; i >= 0; --i) {
      if (!std::equal(suffix.begin(), suffix.end(), tokens.begin() + i)) continue;
      const int64_t first = i + n;
      const int64_t last = std::min(size, first + max_tokens);
      out.assign(tokens.begin() + first, tokens.begin() + last);
      return;
    }
  }
}

}  // namespace tidal::engine
