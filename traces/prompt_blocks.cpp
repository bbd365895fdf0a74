#include "traces/prompt_blocks.h"

#include <algorithm>

#include "traces/random.h"

namespace tidal::traces {

void hash_prompt_blocks(const PromptBlockOwners& owners, Request& request) {
  const int64_t block_tokens = owners.block_tokens;
  const int64_t num_blocks = (request.prompt_tokens + block_tokens - 1) / block_tokens;
  request.prefix_block_tokens = owners.block_tokens;
  request.prefix_blocks.resize(static_cast<size_t>(num_blocks));
  for (int64_t block = 0; block < num_blocks; ++block) {
    const int64_t block_end = std::min((block + 1) * block_tokens, request.prompt_tokens);
    const auto filled = static_cast<uint64_t>(block_end - block * block_tokens);
    const bool shared = (block + 1) * block_tokens <= owners.shared_tokens;
    const uint64_t owner = shared ? owners.shared_key : owners.own_key;
    request.prefix_blocks[static_cast<size_t>(block)] =
        mix64(mix64(owner ^ static_cast<uint64_t>(block)) ^ filled);
  }
}

}  // namespace tidal::traces
