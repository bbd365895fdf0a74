#include "engine/prompt_tokens.h"

#include <string>

#include "base/input_error.h"
#include "engine/kv/flat_map.h"

namespace tidal::engine {

namespace {

constexpr uint64_t kSharedTag = 0x656e'6750'7266'7821ULL;   // tokens of shared source blocks
constexpr uint64_t kPrivateTag = 0x656e'6750'7269'7621ULL;  // tokens private to one request

int32_t token_from(uint64_t hash, int64_t vocab_size) {
  return static_cast<int32_t>(hash % static_cast<uint64_t>(vocab_size));
}

}  // namespace

std::vector<int32_t> synthesize_prompt(const Request& request, int64_t vocab_size, uint64_t seed) {
  const int64_t source_tokens = request.prefix_block_tokens;
  if (!request.prefix_blocks.empty() && source_tokens <= 0) {
    throw InputError("request " + std::to_string(request.id) +
                     ": prefix_block_tokens: must be positive when prefix_blocks is given (got " +
                     std::to_string(source_tokens) + ")");
  }
  std::vector<int32_t> tokens(static_cast<size_t>(request.prompt_tokens));  // [prompt_tokens]
  const auto num_source_blocks = static_cast<int64_t>(request.prefix_blocks.size());
  const uint64_t private_base =
      kv::mix64(kPrivateTag ^ kv::mix64(seed ^ kv::mix64(static_cast<uint64_t>(request.id))));
  uint64_t chain = kSharedTag;
  int64_t chain_block = -1;  // source block `chain` covers up to
  for (int64_t p = 0; p < request.prompt_tokens; ++p) {
    const int64_t block = source_tokens > 0 ? p / source_tokens : num_source_blocks;
    uint64_t hash;
    if (block < num_source_blocks) {
      while (chain_block < block) {
        ++chain_block;
        chain =
            kv::mix64(chain + kv::mix64(request.prefix_blocks[static_cast<size_t>(chain_block)]));
      }
      hash = kv::mix64(chain ^ static_cast<uint64_t>(p % source_tokens));
    } else {
      hash = kv::mix64(private_base + static_cast<uint64_t>(p));
    }
    tokens[static_cast<size_t>(p)] = token_from(hash, vocab_size);
  }
  return tokens;
}

}  // namespace tidal::engine
