// Chained block hashes for prefix caching. The hash of engine block i covers the content of
// blocks 0..i, so equal hashes mean equal prefixes and a prefix match is a run of equal leading
// hashes. Traces describe prompts with their own (often coarser) block hashes, e.g. Mooncake's
// 512-token `hash_ids`; this file maps them onto engine blocks deterministically.
#pragma once

#include <cstdint>
#include <vector>

#include "traces/request.h"

namespace tidal::kv {

// Hashes with this bit set are private to one request (content no other request can have:
// blocks the trace's hashes do not cover, and generated tokens). The block manager keeps them
// out of its shared index; only the request itself can find such blocks again (see
// BlockManager::acquire_prefix). Hashes from the trace's prefix blocks have the bit clear.
constexpr uint64_t kPrivateHashBit = uint64_t{1} << 63;
inline bool is_private_hash(uint64_t hash) {
  return (hash & kPrivateHashBit) != 0;
}

// Hash of a block given its parent chain hash and the fields that identify its own content.
uint64_t chain_hash(uint64_t parent_hash, uint64_t content_hash, uint64_t sub_index);

// Hashes of the request's FULL prompt blocks of `block_size` tokens:
// [prompt_tokens / block_size]. Block i's hash is
//   chain_hash(hash of block i-1, fold of the source hashes covering it, its offset in the first),
// where the source hashes are `request.prefix_blocks` cut at `request.prefix_block_tokens` (for
// Mooncake: 512 -> 32 engine blocks per source block, sub-index 0..31). So two requests whose
// first m source blocks are equal share their first floor(m * source / block_size) engine blocks.
// Blocks the source hashes do not cover (no prefix_blocks, or fewer than the prompt needs) get
// private hashes unique to (`salt`, request.id), so requests never share them. Throws
// InputError when prefix_blocks is non-empty but prefix_block_tokens is not positive.
std::vector<uint64_t> engine_block_hashes(const Request& request, int32_t block_size,
                                          uint64_t salt = 0);

// Appends hashes for blocks [hashes.size(), num_blocks) that hold generated tokens (or any
// content private to the request): chained onto the existing hashes and unique to
// (`salt`, request_id). Lets a request preempted by recompute find its own blocks again.
void extend_private_block_hashes(int64_t request_id, uint64_t salt, int64_t num_blocks,
                                 std::vector<uint64_t>& hashes);

}  // namespace tidal::kv
