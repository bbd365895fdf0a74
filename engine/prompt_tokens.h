// Prompt token ids for trace requests. Traces carry lengths, not text, so the engine invents
// the tokens, deterministically:
//   - a prompt position covered by the request's prefix_blocks (source block j, cut at
//     prefix_block_tokens) gets a token derived from the chain of source hashes 0..j and its
//     offset in block j, so requests sharing their first m source blocks get identical tokens
//     there and the KV prefix cache hits for real;
//   - every other position gets a token derived from (seed, request id, position).
#pragma once

#include <cstdint>
#include <vector>

#include "traces/request.h"

namespace tidal::engine {

// [request.prompt_tokens] ids in [0, vocab_size). InputError when prefix_blocks is given
// without a positive prefix_block_tokens.
std::vector<int32_t> synthesize_prompt(const Request& request, int64_t vocab_size, uint64_t seed);

}  // namespace tidal::engine
