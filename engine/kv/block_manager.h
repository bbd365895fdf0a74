// The paged KV block manager: mechanism only, no policy. A pool of GPU blocks with reference
// counts and an intrusive LRU free list, per-request block tables, prefix caching by chained
// block hashes, fork with copy-on-write, and swapping to a CPU block pool.
//
// Free list: a block whose reference count drops to 0 joins the free list. It keeps its hash
// (it stays "cached") until it is reused for new content, which evicts the hash. Blocks without
// a hash join at the front (reused first); hashed blocks join at the back, so cached blocks are
// evicted least-recently-freed first. A prefix hit on a cached free block pulls it back out of
// the free list. When a request is freed its blocks are released last block first, so a
// prefix's tail is evicted before its head.
//
// Offload tiers (tier_store.h): with a TierStore attached, reusing a cached free block for new
// content writes its shared hash down to the tiers (private hashes stay on the GPU).
//
// Every block is either on the free list or referenced: num_free_blocks() + num_used_blocks()
// == num_gpu_blocks() at all times. Calls with an unknown request id, or that would break an
// invariant, are programming errors and throw std::logic_error.
//
// Layout for speed (the simulator calls this millions of times): the free list is a ring of
// (block, stamp) entries, removal from its middle only invalidates the entry (pops skip
// entries whose stamp is no longer the block's), and the hash index drops an evicted block's
// entry lazily (lookups check the block's own hash); both are compacted when stale entries
// pile up. Each touch of a block is then one cache line of the block array.
//
// Sized by use, not by the pool (a fleet holds thousands of mostly idle replicas): the blocks
// never taken yet, ids [num_materialized_blocks(), num_gpu_blocks()), are free, in id order,
// and stand as one run in the free list (one ring entry, kFreshRun); a block's bookkeeping is
// materialized when the run hands it out. Unhashed blocks join the list in front of the run
// and hashed ones behind it, so block ids, eviction order and counts are those of a pool built
// whole. The ring, the hash index and the CPU free stack grow likewise with what they hold.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/kv/block_hash.h"
#include "engine/kv/flat_map.h"

namespace tidal::kv {

class TierStore;

struct BlockManagerConfig {
  int32_t block_size = 16;            // tokens per block
  int64_t num_gpu_blocks = 0;         // size of the GPU pool (perf::plan_memory computes it)
  int64_t num_cpu_blocks = 0;         // size of the CPU swap pool; 0 disables swapping
  bool enable_prefix_caching = true;  // reuse blocks by chained hash across requests
};

// Throws InputError naming `json_path` (e.g. "fleet.pools[0]") for an impossible config:
// block_size < 1, num_gpu_blocks < 1, num_cpu_blocks < 0, or pools beyond int32 block ids.
void validate(const BlockManagerConfig& config, std::string_view json_path);

// One block copy for the executor: GPU->CPU on swap out, CPU->GPU on swap in, GPU->GPU for
// copy-on-write.
struct BlockCopy {
  int32_t src_block = 0;
  int32_t dst_block = 0;
};

// What a prefix lookup found: the leading run of cached blocks, and how many of those are
// currently free (taking them shrinks the free pool, so admission must count them).
struct PrefixMatch {
  int64_t num_hit_blocks = 0;
  int64_t num_hit_free_blocks = 0;
};

// Cumulative counters since construction.
struct BlockManagerStats {
  int64_t num_queried_blocks = 0;   // hashes offered to acquire_prefix
  int64_t num_hit_blocks = 0;       // of those, found cached (misses = queried - hits)
  int64_t num_evictions = 0;        // cached free blocks reused for new content
  int64_t num_swap_out_blocks = 0;  // blocks copied GPU -> CPU
  int64_t num_swap_in_blocks = 0;   // blocks copied CPU -> GPU
  int64_t num_cow_copies = 0;       // copy-on-write block copies after fork
};

class BlockManager {
 public:
  // Throws InputError (json path "block_manager") for an impossible config.
  explicit BlockManager(const BlockManagerConfig& config);

  const BlockManagerConfig& config() const { return config_; }
  int32_t block_size() const { return config_.block_size; }
  int64_t num_gpu_blocks() const { return config_.num_gpu_blocks; }
  int64_t num_free_blocks() const { return num_free_blocks_; }  // includes cached free blocks
  int64_t num_used_blocks() const { return config_.num_gpu_blocks - num_free_blocks_; }
  int64_t num_cached_blocks() const { return num_hashed_blocks_; }  // blocks with a hash
  int64_t num_cpu_blocks() const { return config_.num_cpu_blocks; }
  int64_t num_free_cpu_blocks() const {
    return static_cast<int64_t>(free_cpu_blocks_.size()) + config_.num_cpu_blocks -
           num_cpu_blocks_taken_;
  }
  double usage() const;  // used / total GPU blocks, in [0, 1]
  const BlockManagerStats& stats() const { return stats_; }
  // What the manager holds in memory (tests and benchmarks of an idle pool): GPU blocks whose
  // bookkeeping exists (every block ever taken), and the bytes reserved by its arrays and maps.
  int64_t num_materialized_blocks() const { return static_cast<int64_t>(blocks_.size()); }
  int64_t num_reserved_bytes() const;

  // Blocks needed to hold `num_tokens` tokens: ceil(num_tokens / block_size).
  int64_t num_blocks_for(int64_t num_tokens) const {
    return (num_tokens + config_.block_size - 1) / config_.block_size;
  }

  // The offload tiers below this pool (null: none). The store must outlive its use here.
  void attach_tiers(TierStore* tiers) { tiers_ = tiers; }
  TierStore* tiers() const { return tiers_; }

  bool has_request(int64_t request_id) const;
  int64_t num_requests() const { return slot_of_request_.size(); }

  // ---- prefix caching ----------------------------------------------------------------------
  // A block matches hash h when it still holds the content h names. Shared hashes (from trace
  // prefix blocks) are looked up in the index; private hashes (is_private_hash) are never
  // indexed: block i can only match through `previous_blocks[i]`, the table the request held
  // before it was preempted, if that block has not been reused since.
  //
  // The leading run of matching blocks. Pure query: no state changes, no stats. Always empty
  // with prefix caching disabled.
  PrefixMatch match_prefix(std::span<const uint64_t> block_hashes,
                           std::span<const int32_t> previous_blocks = {}) const;
  // Starts a new request's block table with the leading matching run (as match_prefix), taking
  // a reference on each hit block (pulling free ones out of the free list). Counts all offered
  // hashes as queried. Returns the number of hit blocks. The request must not exist yet.
  int64_t acquire_prefix(int64_t request_id, std::span<const uint64_t> block_hashes,
                         std::span<const int32_t> previous_blocks = {});
  // Records the hashes of the request's first `num_full_blocks` blocks (full of computed
  // tokens) so later lookups can match them; blocks recorded before are skipped, and a shared
  // hash already held by another block is left with that block. No-op without prefix caching.
  void cache_blocks(int64_t request_id, std::span<const uint64_t> block_hashes,
                    int64_t num_full_blocks);

  // ---- growth and release ------------------------------------------------------------------
  // Free GPU blocks allocate_slots(request_id, num_tokens) would take (0 for a request that
  // already holds enough; a new request counts as holding nothing; includes a copy-on-write
  // block when the shared last block would be written).
  int64_t num_new_blocks_needed(int64_t request_id, int64_t num_tokens) const;
  // Makes the request's table hold at least `num_tokens` token slots (creating the request if
  // new). Blocks come from the front of the free list (evicting their hashes). A partially
  // filled last block shared with another request (after fork) is copied first (see
  // cow_copies()). Returns false and changes nothing when fewer than needed blocks are free.
  // `slot_hint`, where given, is where the caller last saw the request's table (-1: nowhere);
  // it is checked before use and updated, so a stale one costs only the lookup it would save.
  bool allocate_slots(int64_t request_id, int64_t num_tokens, int32_t* slot_hint = nullptr);
  // Shrinks the request's slots to `num_tokens` (rejected speculative tokens), releasing blocks
  // beyond ceil(num_tokens / block_size).
  void truncate(int64_t request_id, int64_t num_tokens);
  // Releases all of the request's blocks (GPU or, when swapped out, CPU) and forgets it.
  void free(int64_t request_id);
  // `child_id` (new) shares all of `parent_id`'s blocks; the first write to a shared partial
  // block copies it.
  void fork(int64_t parent_id, int64_t child_id);

  // ---- swapping ----------------------------------------------------------------------------
  // Moves the request's blocks to the CPU pool, appending one {gpu, cpu} pair per block to
  // `copies`. Returns false and changes nothing when the CPU pool is too small.
  bool swap_out(int64_t request_id, std::vector<BlockCopy>& copies);
  // Moves a swapped-out request back to fresh GPU blocks, appending {cpu, gpu} pairs. Returns
  // false and changes nothing when fewer free GPU blocks than its table are available.
  bool swap_in(int64_t request_id, std::vector<BlockCopy>& copies);
  bool is_swapped(int64_t request_id) const;

  // ---- what the executor reads -------------------------------------------------------------
  // Block ids of the request, in token order: [num_blocks_for(num_tokens(request_id))]. GPU ids
  // unless the request is swapped out (then CPU ids). Valid until the next mutating call.
  std::span<const int32_t> block_table(int64_t request_id) const;
  // Token slots the request holds (what allocate_slots / truncate set).
  int64_t num_tokens(int64_t request_id) const;
  // Appends the cache slot (block_id * block_size + offset) of tokens
  // [first_token, first_token + num_tokens) of the request to `slots`.
  void append_slot_mapping(int64_t request_id, int64_t first_token, int64_t num_tokens,
                           std::vector<int64_t>& slots) const;
  // Copy-on-write copies made since the last clear_cow_copies(), for the executor to perform.
  std::span<const BlockCopy> cow_copies() const { return cow_copies_; }
  void clear_cow_copies() { cow_copies_.clear(); }

  // Checks every invariant (free + used == total, reference counts equal table references,
  // free list and hash index consistent). Returns "" when all hold, else the first violation.
  // O(pool size + tables): for tests, not for hot paths.
  std::string check_invariants() const;

 private:
  struct Slot {
    int64_t request_id = kReleasedSlot;
    int64_t num_tokens = 0;         // token slots held
    int64_t num_cached_blocks = 0;  // leading blocks whose hashes cache_blocks already handled
    bool swapped = false;           // blocks hold CPU ids
    // The partially filled last block may be shared (only fork shares partial blocks), so a
    // write must check its reference count and maybe copy it first.
    bool last_block_maybe_shared = false;
    std::vector<int32_t> blocks;  // [num_blocks_for(num_tokens)] block ids
  };

  static constexpr int64_t kReleasedSlot = std::numeric_limits<int64_t>::min();  // no request
  int32_t slot_index(int64_t request_id) const;  // throws std::logic_error when unknown
  int32_t new_slot(int64_t request_id);          // throws std::logic_error when it exists
  void release_slot(int32_t slot);
  bool last_block_shared(const Slot& slot) const;  // a write would need copy-on-write
  int32_t take_free_block();                       // front of the free list; evicts its hash
  void release_block(int32_t block);
  // The block holding the content `hash` names (see match_prefix), or -1.
  int32_t cached_block(uint64_t hash, std::span<const int32_t> previous_blocks, size_t i) const;
  int32_t indexed_block(uint64_t hash) const;  // shared hashes only
  void take_from_free_list(int32_t block);     // a prefix hit on a free block
  void push_free(int32_t block, bool back);
  void pop_free_front();  // drops the ring's front entry
  // Asks the CPU to fetch the front free entry's block while other work runs: the next
  // take_free_block reads it, and free entries sit cold in a pool of many blocks.
  void prefetch_front_block() const;
  void compact_free_ring();  // drops stale entries; doubles a ring left more than half full
  uint64_t max_free_ring_capacity() const;  // power of two >= 2 * num_gpu_blocks
  void compact_hash_index();
  int32_t take_cpu_block();  // top of the CPU free stack, else the lowest never-taken id

  // One GPU block's bookkeeping, kept together so a block costs one cache line.
  struct Block {
    uint64_t hash = 0;        // chained content hash, meaningful when has_hash
    uint64_t free_stamp = 0;  // stamp of its live free-ring entry; 0 when not free
    int32_t ref_count = 0;    // tables holding the block
    bool has_hash = false;    // holds the content `hash` names (shared ones are indexed)
  };
  struct FreeEntry {
    int32_t block = -1;  // or kFreshRun
    uint64_t stamp = 0;  // live when equal to the block's free_stamp
  };
  // The free-ring entry standing for every block never taken yet, in id order (at most one).
  static constexpr int32_t kFreshRun = -2;
  Block& gpu(int32_t block) { return blocks_[static_cast<size_t>(block)]; }
  const Block& gpu(int32_t block) const { return blocks_[static_cast<size_t>(block)]; }

  BlockManagerConfig config_;
  std::vector<Block> blocks_;  // [num_materialized_blocks <= num_gpu_blocks] by block id
  // [capacity] power of two, at most max_free_ring_capacity(); doubled when compaction leaves
  // it more than half full.
  std::vector<FreeEntry> free_ring_;
  uint64_t free_ring_head_ = 0;    // index of the front entry
  uint64_t num_free_entries_ = 0;  // live and stale entries in the ring
  uint64_t next_free_stamp_ = 1;
  int64_t num_free_blocks_ = 0;
  FlatMap block_of_hash_;          // chained hash -> GPU block id; may hold stale entries
  int64_t num_hashed_blocks_ = 0;  // blocks with has_hash

  // CPU blocks: ids [0, num_cpu_blocks_taken_) have been taken at least once; the free ones
  // among them are on the stack, above the never-taken rest (taken lowest id first).
  std::vector<int32_t> free_cpu_blocks_;  // [<= num_cpu_blocks_taken_] stack of free CPU ids
  int64_t num_cpu_blocks_taken_ = 0;

  std::vector<Slot> slots_;            // per tracked request; reused after release
  std::vector<int32_t> free_slots_;    // indices into slots_
  FlatMap slot_of_request_;            // request id -> index into slots_
  std::vector<BlockCopy> cow_copies_;  // pending copy-on-write copies
  BlockManagerStats stats_;
  TierStore* tiers_ = nullptr;  // where evicted cached blocks go; null: nowhere
};

}  // namespace tidal::kv
