// Prefix-block hashes of generated prompts: a prompt is one token stream cut into fixed-size
// blocks, and a block's content is fixed by (owner, index, tokens filled). Blocks wholly inside
// a shared leading part (a system prompt) belong to its owner, so every prompt sharing that
// part gets equal leading hashes; the others belong to the prompt's own stream.
#pragma once

#include <cstdint>

#include "traces/request.h"

namespace tidal::traces {

struct PromptBlockOwners {
  int32_t block_tokens = 16;  // tokens per block
  int64_t shared_tokens = 0;  // leading tokens owned by shared_key
  uint64_t shared_key = 0;    // owner of the blocks wholly inside the shared part
  uint64_t own_key = 0;       // owner of every other block (a session, a client's request)
};

// Sets request.prefix_blocks ([ceil(prompt_tokens / block_tokens)]) and prefix_block_tokens.
void hash_prompt_blocks(const PromptBlockOwners& owners, Request& request);

}  // namespace tidal::traces
