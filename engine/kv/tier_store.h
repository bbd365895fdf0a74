// KV-cache offload tiers below GPU memory (docs/scheduler.md, "KV offload tiers"): CPU memory,
// local disk, or a remote cluster cache shared by several replicas (Mooncake / LMCache style).
// Mechanism only: each tier is an LRU set of block hashes with a capacity in blocks and a write
// queue; a TierStore is one replica's ordered list of tiers, top (nearest the GPU) first.
//
// Data flow. When the GPU block manager reuses a cached free block for new content it hands the
// block's (shared) hash to TierStore::on_gpu_evict, which writes it to the first tier; a tier
// that is full evicts its least recently used block and writes that one on to the next tier
// (the last tier's victims are gone). Writes run in the background: they cost no request any
// time, but each tier accepts at most its write bandwidth: a tier whose queued writes would take
// longer than kWriteBacklogNs to drain drops the block offered (counted, never an error). A
// block is findable as soon as its write is accepted.
//
// Reads. A request's prefix is matched in the GPU first, then block by block in the tiers from
// where the GPU match stopped: each block from the first tier holding it, the run ending at the
// first block no tier holds. Loading the run takes, per tier it touches, latency + bytes / read
// bandwidth (tiers summed: loads from different tiers do not overlap); a loaded block stays in
// its tier and becomes its most recently used.
//
// Determinism: no iteration over hashed containers; the result is a pure function of the calls.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/kv/flat_map.h"

namespace tidal::kv {

enum class TierKind : uint8_t { cpu, disk, remote };
std::string_view tier_kind_name(TierKind kind);

// A tier accepts a write while its queued writes drain within this long (its write queue).
inline constexpr int64_t kWriteBacklogNs = 1'000'000'000;

struct TierConfig {
  static constexpr int64_t kUnbounded = -1;
  TierKind kind = TierKind::cpu;
  int64_t capacity_blocks = kUnbounded;  // blocks it holds; kUnbounded only for remote
  double block_bytes = 0.0;              // one block's KV: all layers, all TP ranks
  double read_bytes_per_s = 0.0;
  double write_bytes_per_s = 0.0;
  int64_t latency_ns = 0;  // per load touching this tier
};

// Throws InputError naming `json_path` (e.g. "fleet.pools[0].kv_tiers[1]"): capacity < 1 (or
// unbounded for a tier other than remote), block bytes or a bandwidth not > 0, latency < 0.
void validate(const TierConfig& config, std::string_view json_path);

// One tier's content: an LRU set of block hashes, and its write queue.
class KvTier {
 public:
  enum class WriteOutcome : uint8_t {
    written,  // stored as the most recent block (maybe evicting the least recent)
    held,     // already here: made the most recent, nothing written
    dropped,  // the write queue is full: not stored
  };
  struct WriteResult {
    WriteOutcome outcome = WriteOutcome::dropped;
    bool evicted = false;  // `written` into a full tier: `victim` left it
    uint64_t victim = 0;
  };

  explicit KvTier(const TierConfig& config);  // throws InputError (json path "kv_tier")

  const TierConfig& config() const { return config_; }
  int64_t num_blocks() const { return num_blocks_; }
  int64_t peak_num_blocks() const { return peak_num_blocks_; }
  bool contains(uint64_t hash) const { return node_of_hash_.find(hash) != FlatMap::kAbsent; }
  // Makes a held block the most recent; no-op for a block not held.
  void touch(uint64_t hash);
  // Offers block `hash` at `now_ns` (times never decrease). On `written` with the tier full,
  // the least recent block was evicted first.
  WriteResult write(uint64_t hash, int64_t now_ns);
  // Checks the LRU list against the index and the capacity; "" when consistent. For tests.
  std::string check_invariants() const;

 private:
  struct Node {
    uint64_t hash = 0;
    int32_t prev = -1;  // towards the most recent; -1 at the head
    int32_t next = -1;  // towards the least recent; -1 at the tail
  };
  void unlink(int32_t node);
  void push_front(int32_t node);

  TierConfig config_;
  double write_ns_per_block_ = 0.0;
  double write_queue_done_ns_ = 0.0;  // when the accepted writes have all drained
  std::vector<Node> nodes_;           // [held blocks + free nodes]
  std::vector<int32_t> free_nodes_;   // indices into nodes_
  FlatMap node_of_hash_;              // block hash -> index into nodes_
  int32_t head_ = -1;                 // most recent
  int32_t tail_ = -1;                 // least recent: evicted first
  int64_t num_blocks_ = 0;
  int64_t peak_num_blocks_ = 0;
};

// What one replica moved through one of its tiers (the shared remote tier counts per replica).
struct TierStats {
  int64_t num_written_blocks = 0;  // writes accepted (from the GPU or the tier above)
  int64_t num_dropped_blocks = 0;  // writes refused by a full write queue
  int64_t num_evicted_blocks = 0;  // LRU victims written on to the next tier (or lost)
  int64_t num_hit_blocks = 0;      // blocks loaded from it
  double written_bytes = 0.0;
  double read_bytes = 0.0;
  int64_t peak_num_blocks = 0;  // the tier's most blocks at once (the whole store for remote)
};

struct TierStoreStats {
  std::vector<TierStats> tiers;  // [num tiers], top first
  int64_t num_loads = 0;         // admissions that loaded blocks from a tier
  int64_t load_ns = 0;           // their load times summed
};

// Where each block of a matched run comes from.
struct TierMatch {
  std::vector<int32_t> tier_of_block;  // [matched blocks] index of the tier it loads from
  int64_t num_hit_blocks() const { return static_cast<int64_t>(tier_of_block.size()); }
};

class TierStore {
 public:
  // `tiers` top first, none null; a remote tier may be shared with other stores.
  explicit TierStore(std::vector<std::shared_ptr<KvTier>> tiers);

  int32_t num_tiers() const { return static_cast<int32_t>(tiers_.size()); }
  const KvTier& tier(int32_t i) const { return *tiers_[static_cast<size_t>(i)]; }
  TierStoreStats stats() const;

  // The time later writes and loads happen at (the scheduler's step time; never decreases).
  void set_now(int64_t now_ns) { now_ns_ = now_ns; }
  // The GPU reused a cached block holding shared hash `hash`: write it down to the first tier.
  void on_gpu_evict(uint64_t hash);
  // The leading run of `hashes` some tier holds into `match`. Pure query.
  void match(std::span<const uint64_t> hashes, TierMatch& match) const;
  // Load time of a matched run: per tier it touches, latency + bytes / read bandwidth, summed.
  int64_t load_ns(const TierMatch& match) const;
  // Loads the matched run of `hashes` (touching each block in its tier, counting the reads);
  // returns load_ns(match).
  int64_t load(std::span<const uint64_t> hashes, const TierMatch& match);

 private:
  // Writes `hash` to tier `i` and its victims on down, counting each tier's traffic.
  void write_down(size_t i, uint64_t hash);

  std::vector<std::shared_ptr<KvTier>> tiers_;  // [num tiers] top first
  std::vector<TierStats> stats_;                // [num tiers]
  int64_t num_loads_ = 0;
  int64_t load_ns_total_ = 0;
  int64_t now_ns_ = 0;
};

}  // namespace tidal::kv
