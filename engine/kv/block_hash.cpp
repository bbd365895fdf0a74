#include "engine/kv/block_hash.h"

#include <string>

#include "base/input_error.h"
#include "engine/kv/flat_map.h"

namespace tidal::kv {

namespace {

// Domain tags keep the three kinds of content hash apart.
constexpr uint64_t kSourceTag = 0x7469'6461'6c53'7263ULL;   // hashes from the trace
constexpr uint64_t kPrivateTag = 0x7469'6461'6c50'7276ULL;  // private to one request
constexpr uint64_t kRootHash = 0x7469'6461'6c52'6f6fULL;    // parent of block 0

uint64_t private_content(int64_t request_id, uint64_t salt) {
  return mix64(kPrivateTag ^ mix64(salt ^ mix64(static_cast<uint64_t>(request_id))));
}

}  // namespace

uint64_t chain_hash(uint64_t parent_hash, uint64_t content_hash, uint64_t sub_index) {
  uint64_t h = mix64(parent_hash + 0x9e3779b97f4a7c15ULL);
  h = mix64(h ^ content_hash);
  return mix64(h ^ (sub_index * 0xd6e8feb86659fd93ULL + 1));
}

std::vector<uint64_t> engine_block_hashes(const Request& request, int32_t block_size,
                                          uint64_t salt) {
  const int64_t source_tokens = request.prefix_block_tokens;
  if (!request.prefix_blocks.empty() && source_tokens <= 0) {
    throw InputError("request " + std::to_string(request.id) +
                     ": prefix_block_tokens: must be positive when prefix_blocks is given (got " +
                     std::to_string(source_tokens) + ")");
  }
  const int64_t num_full_blocks = request.prompt_tokens / block_size;
  const auto num_source_blocks = static_cast<int64_t>(request.prefix_blocks.size());
  std::vector<uint64_t> hashes;  // [num_full_blocks]
  hashes.reserve(static_cast<size_t>(num_full_blocks));
  // A LoRA adapter's KV differs from the base model's on the same tokens: its chain starts
  // from the adapter's name (FNV-1a), so only requests of one adapter share blocks.
  uint64_t parent = kRootHash;
  if (!request.adapter.empty()) {
    uint64_t name = 0xcbf29ce484222325ULL;
    for (const char c : request.adapter.str())
      name = (name ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    parent = mix64(kRootHash ^ name);
  }
  for (int64_t i = 0; i < num_full_blocks; ++i) {
    const int64_t first_token = i * block_size;
    const int64_t last_token = first_token + block_size - 1;
    const bool covered = source_tokens > 0 && last_token / source_tokens < num_source_blocks;
    if (!covered) break;
    uint64_t content = kSourceTag;
    for (int64_t s = first_token / source_tokens; s <= last_token / source_tokens; ++s) {
      content = mix64(content ^ request.prefix_blocks[static_cast<size_t>(s)]);
    }
    parent = chain_hash(parent, content, static_cast<uint64_t>(first_token % source_tokens)) &
             ~kPrivateHashBit;
    hashes.push_back(parent);
  }
  extend_private_block_hashes(request.id, salt, num_full_blocks, hashes);
  return hashes;
}

void extend_private_block_hashes(int64_t request_id, uint64_t salt, int64_t num_blocks,
                                 std::vector<uint64_t>& hashes) {
  if (static_cast<int64_t>(hashes.size()) >= num_blocks) return;
  const uint64_t content = private_content(request_id, salt);
  uint64_t parent = hashes.empty() ? kRootHash : hashes.back();
  for (auto i = static_cast<int64_t>(hashes.size()); i < num_blocks; ++i) {
    parent = chain_hash(parent, content, static_cast<uint64_t>(i)) | kPrivateHashBit;
    hashes.push_back(parent);
  }
}

}  // namespace tidal::kv
