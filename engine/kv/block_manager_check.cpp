// BlockManager::check_invariants: the whole-state consistency check the tests run.
#include <string>
#include <vector>

#include "engine/kv/block_manager.h"

namespace tidal::kv {

std::string BlockManager::check_invariants() const {
  const auto num_blocks = static_cast<size_t>(num_materialized_blocks());
  if (num_materialized_blocks() > config_.num_gpu_blocks) return "more blocks than the pool";
  // Free ring: every live entry is an unreferenced block, listed once; the fresh run (the
  // blocks never taken) is listed once while there is one.
  std::vector<uint8_t> on_free_list(num_blocks, 0);  // [num_materialized_blocks]
  int64_t num_listed = 0;
  bool fresh_run_listed = false;
  const uint64_t mask = free_ring_.size() - 1;
  if (free_ring_.empty() || (free_ring_.size() & mask) != 0 ||
      free_ring_.size() > max_free_ring_capacity()) {
    return "free ring capacity not a power of two up to twice the pool";
  }
  if (num_free_entries_ > free_ring_.size()) return "free ring overfull";
  for (uint64_t i = 0; i < num_free_entries_; ++i) {
    const FreeEntry entry = free_ring_[(free_ring_head_ + i) & mask];
    if (entry.block == kFreshRun) {
      if (fresh_run_listed) return "fresh run listed twice";
      if (num_materialized_blocks() == config_.num_gpu_blocks) return "empty fresh run listed";
      fresh_run_listed = true;
      num_listed += config_.num_gpu_blocks - num_materialized_blocks();
      continue;
    }
    if (entry.block < 0 || entry.block >= num_materialized_blocks()) return "free ring entry bad";
    if (gpu(entry.block).free_stamp != entry.stamp) continue;  // stale
    if (on_free_list[static_cast<size_t>(entry.block)]) return "block listed twice as free";
    on_free_list[static_cast<size_t>(entry.block)] = 1;
    if (gpu(entry.block).ref_count != 0) return "referenced block on the free list";
    ++num_listed;
  }
  if (num_materialized_blocks() < config_.num_gpu_blocks && !fresh_run_listed) {
    return "fresh blocks missing from the free list";
  }
  if (num_listed != num_free_blocks_) return "free list length != num_free_blocks";

  // Reference counts equal the number of GPU tables holding each block.
  std::vector<int32_t> num_refs(num_blocks, 0);  // [num_materialized_blocks]
  std::vector<uint8_t> cpu_used(static_cast<size_t>(config_.num_cpu_blocks), 0);
  int64_t num_requests_seen = 0;
  for (size_t s = 0; s < slots_.size(); ++s) {
    const Slot& slot = slots_[s];
    if (slot_of_request_.find(static_cast<uint64_t>(slot.request_id)) != static_cast<int32_t>(s)) {
      continue;  // a released slot
    }
    ++num_requests_seen;
    if (static_cast<int64_t>(slot.blocks.size()) != num_blocks_for(slot.num_tokens)) {
      return "request " + std::to_string(slot.request_id) + ": table size != tokens";
    }
    for (const int32_t b : slot.blocks) {
      if (slot.swapped) {
        if (b < 0 || b >= config_.num_cpu_blocks || cpu_used[static_cast<size_t>(b)]) {
          return "bad or shared CPU block in a swapped table";
        }
        cpu_used[static_cast<size_t>(b)] = 1;
      } else {
        if (b < 0 || b >= num_materialized_blocks()) return "GPU block id out of range";
        ++num_refs[static_cast<size_t>(b)];
      }
    }
  }
  if (num_requests_seen != slot_of_request_.size()) return "request index size wrong";
  int64_t num_referenced = 0;
  int64_t num_hashed = 0;
  for (size_t b = 0; b < num_blocks; ++b) {
    if (blocks_[b].ref_count < 0) return "negative reference count";
    if (blocks_[b].ref_count != num_refs[b]) return "reference count != table references";
    if ((blocks_[b].ref_count > 0) == static_cast<bool>(on_free_list[b])) {
      return "block neither free nor referenced (or both)";
    }
    if (blocks_[b].ref_count > 0) ++num_referenced;
    if (blocks_[b].has_hash) {
      ++num_hashed;
      if (!is_private_hash(blocks_[b].hash) &&
          indexed_block(blocks_[b].hash) != static_cast<int32_t>(b)) {
        return "hash index stale";
      }
    }
  }
  if (num_referenced + num_free_blocks_ != config_.num_gpu_blocks) return "free + used != total";
  if (num_hashed != num_hashed_blocks_) return "num_cached_blocks wrong";
  if (block_of_hash_.size() > 2 * config_.num_gpu_blocks) return "hash index not compacted";

  if (num_cpu_blocks_taken_ < 0 || num_cpu_blocks_taken_ > config_.num_cpu_blocks) {
    return "more CPU blocks taken than the pool";
  }
  for (int64_t b = num_cpu_blocks_taken_; b < config_.num_cpu_blocks; ++b) {
    if (cpu_used[static_cast<size_t>(b)]) return "never-taken CPU block in a table";
    cpu_used[static_cast<size_t>(b)] = 1;
  }
  for (const int32_t b : free_cpu_blocks_) {
    if (b < 0 || b >= num_cpu_blocks_taken_ || cpu_used[static_cast<size_t>(b)]) {
      return "CPU free block bad or in use";
    }
    cpu_used[static_cast<size_t>(b)] = 1;
  }
  for (const uint8_t used : cpu_used) {
    if (!used) return "CPU block lost";
  }
  return "";
}

}  // namespace tidal::kv
