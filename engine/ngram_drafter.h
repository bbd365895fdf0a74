// Prompt-lookup (n-gram) drafting: the next tokens are guessed by finding the latest earlier
// occurrence of the sequence's last n tokens (n from max_n down to min_n) in the prompt and
// the generated text, and proposing what followed it. Costs no model call.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace tidal::engine {

class NgramDrafter {
 public:
  NgramDrafter(int32_t min_n, int32_t max_n) : min_n_(min_n), max_n_(max_n) {}

  // Replaces `out` with up to `max_tokens` proposed tokens; empty when no suffix recurs.
  void propose(std::span<const int32_t> tokens, int32_t max_tokens,
               std::vector<int32_t>& out) const;

 private:
  int32_t min_n_;
  int32_t max_n_;
};

}  // namespace tidal::engine
