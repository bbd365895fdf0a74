#include "engine/kv/block_manager.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "base/input_error.h"
#include "engine/kv/tier_store.h"

namespace tidal::kv {

namespace {

constexpr int64_t kMaxBlocks = std::numeric_limits<int32_t>::max();
// Entries of a new pool's free ring (power of two); it doubles as it fills.
constexpr uint64_t kFirstFreeRingCapacity = 16;

void require(bool condition, const char* what) {
  if (!condition) throw std::logic_error(std::string("kv::BlockManager: ") + what);
}

const BlockManagerConfig& validated(const BlockManagerConfig& config) {
  validate(config, "block_manager");
  return config;
}

}  // namespace

void validate(const BlockManagerConfig& config, std::string_view json_path) {
  const std::string path(json_path);
  if (config.block_size < 1) {
    throw InputError(path + ".block_size: must be at least 1 (got " +
                     std::to_string(config.block_size) + ")");
  }
  if (config.num_gpu_blocks < 1 || config.num_gpu_blocks > kMaxBlocks) {
    throw InputError(path + ".num_gpu_blocks: must be in [1, " + std::to_string(kMaxBlocks) +
                     "] (got " + std::to_string(config.num_gpu_blocks) + ")");
  }
  if (config.num_cpu_blocks < 0 || config.num_cpu_blocks > kMaxBlocks) {
    throw InputError(path + ".num_cpu_blocks: must be in [0, " + std::to_string(kMaxBlocks) +
                     "] (got " + std::to_string(config.num_cpu_blocks) + ")");
  }
}

BlockManager::BlockManager(const BlockManagerConfig& config) : config_(validated(config)) {
  // Every block starts free, in id order: the fresh run alone (see the header).
  free_ring_.assign(std::min<uint64_t>(kFirstFreeRingCapacity, max_free_ring_capacity()),
                    FreeEntry{});
  free_ring_[0] = {kFreshRun, 0};
  num_free_entries_ = 1;
  num_free_blocks_ = config_.num_gpu_blocks;
}

int64_t BlockManager::num_reserved_bytes() const {
  auto bytes = [](const auto& v) { return static_cast<int64_t>(v.capacity() * sizeof(v[0])); };
  int64_t total = bytes(blocks_) + bytes(free_ring_) + bytes(free_cpu_blocks_) + bytes(slots_) +
                  bytes(free_slots_) + bytes(cow_copies_) + block_of_hash_.num_reserved_bytes() +
                  slot_of_request_.num_reserved_bytes();
  for (const Slot& slot : slots_) total += bytes(slot.blocks);
  return total;
}

double BlockManager::usage() const {
  return static_cast<double>(num_used_blocks()) / static_cast<double>(config_.num_gpu_blocks);
}

bool BlockManager::has_request(int64_t request_id) const {
  return slot_of_request_.find(static_cast<uint64_t>(request_id)) != FlatMap::kAbsent;
}

// ---- prefix caching --------------------------------------------------------------------------

PrefixMatch BlockManager::match_prefix(std::span<const uint64_t> block_hashes,
                                       std::span<const int32_t> previous_blocks) const {
  PrefixMatch match;
  if (!config_.enable_prefix_caching) return match;
  for (size_t i = 0; i < block_hashes.size(); ++i) {
    const int32_t block = cached_block(block_hashes[i], previous_blocks, i);
    if (block < 0) break;
    ++match.num_hit_blocks;
    if (gpu(block).ref_count == 0) ++match.num_hit_free_blocks;
  }
  return match;
}

int64_t BlockManager::acquire_prefix(int64_t request_id, std::span<const uint64_t> block_hashes,
                                     std::span<const int32_t> previous_blocks) {
  const int32_t s = new_slot(request_id);
  Slot& slot = slots_[static_cast<size_t>(s)];
  stats_.num_queried_blocks += static_cast<int64_t>(block_hashes.size());
  if (!config_.enable_prefix_caching) return 0;
  for (size_t i = 0; i < block_hashes.size(); ++i) {
    const int32_t block = cached_block(block_hashes[i], previous_blocks, i);
    if (block < 0) break;
    if (gpu(block).ref_count == 0) take_from_free_list(block);
    ++gpu(block).ref_count;
    slot.blocks.push_back(block);
  }
  const auto num_hit_blocks = static_cast<int64_t>(slot.blocks.size());
  slot.num_tokens = num_hit_blocks * config_.block_size;
  slot.num_cached_blocks = num_hit_blocks;
  stats_.num_hit_blocks += num_hit_blocks;
  return num_hit_blocks;
}

void BlockManager::cache_blocks(int64_t request_id, std::span<const uint64_t> block_hashes,
                                int64_t num_full_blocks) {
  if (!config_.enable_prefix_caching) return;
  Slot& slot = slots_[static_cast<size_t>(slot_index(request_id))];
  require(!slot.swapped, "cache_blocks on a swapped-out request");
  require(num_full_blocks <= static_cast<int64_t>(block_hashes.size()) &&
              num_full_blocks * config_.block_size <= slot.num_tokens,
          "cache_blocks beyond the request's full blocks or hashes");
  for (int64_t i = slot.num_cached_blocks; i < num_full_blocks; ++i) {
    const int32_t block = slot.blocks[static_cast<size_t>(i)];
    const uint64_t h = block_hashes[static_cast<size_t>(i)];
    if (gpu(block).has_hash) continue;  // came from a prefix hit or fork
    if (!is_private_hash(h)) {
      if (indexed_block(h) >= 0) continue;  // same content cached in another block
      if (block_of_hash_.size() >= 2 * config_.num_gpu_blocks) compact_hash_index();
      block_of_hash_.insert(h, block);
    }
    gpu(block).hash = h;
    gpu(block).has_hash = true;
    ++num_hashed_blocks_;
  }
  slot.num_cached_blocks = std::max(slot.num_cached_blocks, num_full_blocks);
}

// ---- growth and release ----------------------------------------------------------------------

int64_t BlockManager::num_new_blocks_needed(int64_t request_id, int64_t num_tokens) const {
  const int32_t s = slot_of_request_.find(static_cast<uint64_t>(request_id));
  if (s == FlatMap::kAbsent) return num_blocks_for(num_tokens);
  const Slot& slot = slots_[static_cast<size_t>(s)];
  require(!slot.swapped, "num_new_blocks_needed on a swapped-out request");
  const int64_t num_grow =
      std::max<int64_t>(0, num_blocks_for(num_tokens) - static_cast<int64_t>(slot.blocks.size()));
  const bool copy_on_write = num_tokens > slot.num_tokens && last_block_shared(slot);
  return num_grow + (copy_on_write ? 1 : 0);
}

bool BlockManager::allocate_slots(int64_t request_id, int64_t num_tokens, int32_t* slot_hint) {
  const bool hint_holds = slot_hint != nullptr && *slot_hint >= 0 &&
                          static_cast<size_t>(*slot_hint) < slots_.size() &&
                          slots_[static_cast<size_t>(*slot_hint)].request_id == request_id;
  int32_t s = hint_holds ? *slot_hint : slot_of_request_.find(static_cast<uint64_t>(request_id));
  if (s == FlatMap::kAbsent) {
    if (num_blocks_for(num_tokens) > num_free_blocks_) return false;
    s = new_slot(request_id);
  }
  if (slot_hint != nullptr) *slot_hint = s;
  Slot& slot = slots_[static_cast<size_t>(s)];
  require(!slot.swapped, "allocate_slots on a swapped-out request");
  if (num_tokens <= slot.num_tokens) return true;
  const bool copy_on_write = last_block_shared(slot);
  const int64_t num_blocks = num_blocks_for(num_tokens);
  const int64_t num_grow = num_blocks - static_cast<int64_t>(slot.blocks.size());
  if (num_grow + (copy_on_write ? 1 : 0) > num_free_blocks_) return false;
  if (copy_on_write) {
    const int32_t shared = slot.blocks.back();
    const int32_t copy = take_free_block();
    --gpu(shared).ref_count;  // stays >= 1: another table holds it
    gpu(copy).ref_count = 1;
    slot.blocks.back() = copy;
    cow_copies_.push_back({shared, copy});
    ++stats_.num_cow_copies;
  }
  for (int64_t i = 0; i < num_grow; ++i) {
    const int32_t block = take_free_block();
    gpu(block).ref_count = 1;
    slot.blocks.push_back(block);
  }
  slot.num_tokens = num_tokens;
  slot.last_block_maybe_shared = false;  // copied, or grown into blocks of its own
  return true;
}

void BlockManager::truncate(int64_t request_id, int64_t num_tokens) {
  Slot& slot = slots_[static_cast<size_t>(slot_index(request_id))];
  require(!slot.swapped, "truncate on a swapped-out request");
  require(num_tokens >= 0 && num_tokens <= slot.num_tokens, "truncate beyond the held slots");
  require(num_tokens >= slot.num_cached_blocks * config_.block_size,
          "truncate into blocks already cached by hash");
  const int64_t num_blocks = num_blocks_for(num_tokens);
  while (static_cast<int64_t>(slot.blocks.size()) > num_blocks) {
    release_block(slot.blocks.back());
    slot.blocks.pop_back();
  }
  slot.num_tokens = num_tokens;
  slot.last_block_maybe_shared = !slot.blocks.empty() && gpu(slot.blocks.back()).ref_count > 1;
}

void BlockManager::free(int64_t request_id) {
  const int32_t s = slot_index(request_id);
  Slot& slot = slots_[static_cast<size_t>(s)];
  if (slot.swapped) {
    for (const int32_t cpu_block : slot.blocks) free_cpu_blocks_.push_back(cpu_block);
  } else {
    // The blocks lie anywhere in the pool: fetch them all before releasing one by one.
    for (const int32_t block : slot.blocks) __builtin_prefetch(&gpu(block));
    for (auto it = slot.blocks.rbegin(); it != slot.blocks.rend(); ++it) release_block(*it);
  }
  release_slot(s);
}

void BlockManager::fork(int64_t parent_id, int64_t child_id) {
  const int32_t parent = slot_index(parent_id);
  require(!slots_[static_cast<size_t>(parent)].swapped, "fork of a swapped-out request");
  const int32_t child = new_slot(child_id);  // may grow slots_: index, don't hold references
  Slot& from = slots_[static_cast<size_t>(parent)];
  Slot& to = slots_[static_cast<size_t>(child)];
  to.blocks.assign(from.blocks.begin(), from.blocks.end());
  to.num_tokens = from.num_tokens;
  to.num_cached_blocks = from.num_cached_blocks;
  for (const int32_t block : to.blocks) ++gpu(block).ref_count;
  from.last_block_maybe_shared = !from.blocks.empty();
  to.last_block_maybe_shared = !to.blocks.empty();
}

// ---- swapping --------------------------------------------------------------------------------

bool BlockManager::swap_out(int64_t request_id, std::vector<BlockCopy>& copies) {
  Slot& slot = slots_[static_cast<size_t>(slot_index(request_id))];
  require(!slot.swapped, "swap_out of a swapped-out request");
  if (static_cast<int64_t>(slot.blocks.size()) > num_free_cpu_blocks()) return false;
  const size_t first_copy = copies.size();
  for (int32_t& block : slot.blocks) {
    const int32_t cpu_block = take_cpu_block();
    copies.push_back({block, cpu_block});
    block = cpu_block;
  }
  // Release the GPU blocks last block first, as free() does.
  for (size_t i = copies.size(); i > first_copy; --i) release_block(copies[i - 1].src_block);
  slot.swapped = true;
  slot.num_cached_blocks = 0;  // hashes are registered again after swap_in
  stats_.num_swap_out_blocks += static_cast<int64_t>(slot.blocks.size());
  return true;
}

bool BlockManager::swap_in(int64_t request_id, std::vector<BlockCopy>& copies) {
  Slot& slot = slots_[static_cast<size_t>(slot_index(request_id))];
  require(slot.swapped, "swap_in of a request that is not swapped out");
  if (static_cast<int64_t>(slot.blocks.size()) > num_free_blocks_) return false;
  for (int32_t& block : slot.blocks) {
    const int32_t gpu_block = take_free_block();
    gpu(gpu_block).ref_count = 1;
    copies.push_back({block, gpu_block});
    free_cpu_blocks_.push_back(block);
    block = gpu_block;
  }
  slot.swapped = false;
  slot.last_block_maybe_shared = false;
  stats_.num_swap_in_blocks += static_cast<int64_t>(slot.blocks.size());
  return true;
}

bool BlockManager::is_swapped(int64_t request_id) const {
  return slots_[static_cast<size_t>(slot_index(request_id))].swapped;
}

// ---- what the executor reads -----------------------------------------------------------------

std::span<const int32_t> BlockManager::block_table(int64_t request_id) const {
  return slots_[static_cast<size_t>(slot_index(request_id))].blocks;
}

int64_t BlockManager::num_tokens(int64_t request_id) const {
  return slots_[static_cast<size_t>(slot_index(request_id))].num_tokens;
}

void BlockManager::append_slot_mapping(int64_t request_id, int64_t first_token, int64_t num_tokens,
                                       std::vector<int64_t>& slots) const {
  const Slot& slot = slots_[static_cast<size_t>(slot_index(request_id))];
  require(first_token >= 0 && num_tokens >= 0 && first_token + num_tokens <= slot.num_tokens,
          "slot mapping beyond the held slots");
  const int64_t block_size = config_.block_size;
  for (int64_t t = first_token; t < first_token + num_tokens; ++t) {
    slots.push_back(slot.blocks[static_cast<size_t>(t / block_size)] * block_size + t % block_size);
  }
}

// ---- internals -------------------------------------------------------------------------------

bool BlockManager::last_block_shared(const Slot& slot) const {
  return slot.last_block_maybe_shared && slot.num_tokens % config_.block_size != 0 &&
         gpu(slot.blocks.back()).ref_count > 1;
}

int32_t BlockManager::slot_index(int64_t request_id) const {
  const int32_t s = slot_of_request_.find(static_cast<uint64_t>(request_id));
  if (s == FlatMap::kAbsent) {
    throw std::logic_error("kv::BlockManager: unknown request " + std::to_string(request_id));
  }
  return s;
}

int32_t BlockManager::new_slot(int64_t request_id) {
  if (has_request(request_id)) {
    throw std::logic_error("kv::BlockManager: request " + std::to_string(request_id) +
                           " already has blocks");
  }
  int32_t s;
  if (!free_slots_.empty()) {
    s = free_slots_.back();
    free_slots_.pop_back();
  } else {
    s = static_cast<int32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& slot = slots_[static_cast<size_t>(s)];
  slot.request_id = request_id;
  slot.num_tokens = 0;
  slot.num_cached_blocks = 0;
  slot.swapped = false;
  slot.last_block_maybe_shared = false;
  slot.blocks.clear();
  slot_of_request_.insert(static_cast<uint64_t>(request_id), s);
  return s;
}

void BlockManager::release_slot(int32_t s) {
  Slot& slot = slots_[static_cast<size_t>(s)];
  slot_of_request_.erase(static_cast<uint64_t>(slot.request_id));
  slot.request_id = kReleasedSlot;
  slot.blocks.clear();
  free_slots_.push_back(s);
}

int32_t BlockManager::take_free_block() {
  require(num_free_blocks_ > 0, "no free block");
  FreeEntry entry = free_ring_[free_ring_head_];
  // Skip entries invalidated by prefix hits or re-queued blocks.
  while (entry.block != kFreshRun && gpu(entry.block).free_stamp != entry.stamp) {
    pop_free_front();
    entry = free_ring_[free_ring_head_];
  }
  --num_free_blocks_;
  if (entry.block == kFreshRun) {  // materialize the run's first block: no hash, unreferenced
    const auto fresh = static_cast<int32_t>(blocks_.size());
    if (blocks_.size() == blocks_.capacity()) {  // grow by doubling, never past the pool
      blocks_.reserve(std::min<size_t>(std::max<size_t>(16, 2 * blocks_.size()),
                                       static_cast<size_t>(config_.num_gpu_blocks)));
    }
    blocks_.emplace_back();
    if (num_materialized_blocks() == config_.num_gpu_blocks) pop_free_front();  // run used up
    return fresh;
  }
  pop_free_front();
  prefetch_front_block();
  Block& block = gpu(entry.block);
  block.free_stamp = 0;
  if (block.has_hash) {  // its index entry goes stale; cached_block() ignores it
    block.has_hash = false;
    --num_hashed_blocks_;
    ++stats_.num_evictions;
    if (tiers_ != nullptr && !is_private_hash(block.hash)) tiers_->on_gpu_evict(block.hash);
  }
  return entry.block;
}

void BlockManager::prefetch_front_block() const {
  if (num_free_entries_ == 0) return;
  const int32_t next = free_ring_[free_ring_head_].block;
  if (next >= 0) __builtin_prefetch(&blocks_[static_cast<size_t>(next)]);
}

void BlockManager::release_block(int32_t block) {
  int32_t& ref = gpu(block).ref_count;
  require(ref > 0, "release of a free block");
  if (--ref == 0) push_free(block, gpu(block).has_hash);
}

int32_t BlockManager::cached_block(uint64_t hash, std::span<const int32_t> previous_blocks,
                                   size_t i) const {
  if (!is_private_hash(hash)) return indexed_block(hash);
  if (i >= previous_blocks.size()) return -1;
  const int32_t block = previous_blocks[i];
  if (block < 0 || block >= num_materialized_blocks()) return -1;  // a fresh block has no hash
  const Block& b = gpu(block);
  return b.has_hash && b.hash == hash ? block : -1;
}

int32_t BlockManager::indexed_block(uint64_t hash) const {
  const int32_t block = block_of_hash_.find(hash);
  if (block == FlatMap::kAbsent) return -1;
  const Block& b = gpu(block);
  return b.has_hash && b.hash == hash ? block : -1;
}

void BlockManager::take_from_free_list(int32_t block) {
  gpu(block).free_stamp = 0;  // its ring entry goes stale
  --num_free_blocks_;
}

void BlockManager::pop_free_front() {
  free_ring_head_ = (free_ring_head_ + 1) & (free_ring_.size() - 1);
  --num_free_entries_;
}

void BlockManager::push_free(int32_t block, bool back) {
  if (num_free_entries_ == free_ring_.size()) compact_free_ring();
  const uint64_t mask = free_ring_.size() - 1;
  const uint64_t stamp = next_free_stamp_++;
  gpu(block).free_stamp = stamp;
  if (back) {
    free_ring_[(free_ring_head_ + num_free_entries_) & mask] = {block, stamp};
  } else {
    free_ring_head_ = (free_ring_head_ - 1) & mask;
    free_ring_[free_ring_head_] = {block, stamp};
  }
  ++num_free_entries_;
  ++num_free_blocks_;
}

uint64_t BlockManager::max_free_ring_capacity() const {
  uint64_t capacity = 2;
  while (capacity < 2 * static_cast<uint64_t>(config_.num_gpu_blocks)) capacity *= 2;
  return capacity;
}

void BlockManager::compact_free_ring() {
  // Keeps the live entries, in order, at the front of a ring at least twice their number. Live
  // entries number at most num_gpu_blocks (the fresh run's one entry stands for a block not
  // yet materialized), so the largest ring is always left at most half full.
  // In place first, from the head on: an entry moves only towards the head, over entries read
  // already.
  const uint64_t mask = free_ring_.size() - 1;
  uint64_t num_live = 0;
  for (uint64_t i = 0; i < num_free_entries_; ++i) {
    const FreeEntry entry = free_ring_[(free_ring_head_ + i) & mask];
    if (entry.block == kFreshRun || gpu(entry.block).free_stamp == entry.stamp) {
      free_ring_[(free_ring_head_ + num_live++) & mask] = entry;
    }
  }
  num_free_entries_ = num_live;
  uint64_t capacity = free_ring_.size();
  while (2 * num_live > capacity && capacity < max_free_ring_capacity()) capacity *= 2;
  if (capacity == free_ring_.size()) return;
  std::vector<FreeEntry> grown(capacity);  // [capacity]
  for (uint64_t i = 0; i < num_live; ++i) grown[i] = free_ring_[(free_ring_head_ + i) & mask];
  free_ring_.swap(grown);
  free_ring_head_ = 0;
}

int32_t BlockManager::take_cpu_block() {
  if (free_cpu_blocks_.empty()) return static_cast<int32_t>(num_cpu_blocks_taken_++);
  const int32_t block = free_cpu_blocks_.back();
  free_cpu_blocks_.pop_back();
  return block;
}

void BlockManager::compact_hash_index() {
  block_of_hash_.clear();
  for (size_t b = 0; b < blocks_.size(); ++b) {
    if (blocks_[b].has_hash && !is_private_hash(blocks_[b].hash)) {
      block_of_hash_.insert(blocks_[b].hash, static_cast<int32_t>(b));
    }
  }
}

}  // namespace tidal::kv
