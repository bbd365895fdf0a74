// The block manager sized by use (engine/kv/block_manager.h, "Sized by use"): an idle pool of
// any size holds a few hundred bytes, it grows with the blocks it hands out, and it hands out
// the very blocks a free list built whole would (checked against a plain list model).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "engine/kv/block_manager.h"

namespace tidal::kv {
namespace {

constexpr int64_t kLargestPool = 2'147'483'647;  // int32 block ids

BlockManagerConfig pool(int64_t num_gpu_blocks, int64_t num_cpu_blocks = 0) {
  BlockManagerConfig c;
  c.block_size = 16;
  c.num_gpu_blocks = num_gpu_blocks;
  c.num_cpu_blocks = num_cpu_blocks;
  return c;
}

TEST(BlockManagerLazy, IdlePoolReservesTheSameFewBytesAtAnySize) {
  const BlockManager small(pool(16, 16));
  const BlockManager largest(pool(kLargestPool, kLargestPool));
  EXPECT_EQ(largest.num_materialized_blocks(), 0);
  EXPECT_EQ(largest.num_free_blocks(), kLargestPool);
  EXPECT_EQ(largest.num_used_blocks(), 0);
  EXPECT_EQ(largest.num_free_cpu_blocks(), kLargestPool);
  EXPECT_EQ(largest.num_reserved_bytes(), small.num_reserved_bytes());
  EXPECT_LE(largest.num_reserved_bytes(), 2048);
}

TEST(BlockManagerLazy, GrowsWithTheBlocksItHandsOut) {
  BlockManager kv(pool(1 << 24, 1 << 24));
  const int64_t idle_bytes = kv.num_reserved_bytes();
  for (int64_t id = 0; id < 10; ++id) ASSERT_TRUE(kv.allocate_slots(id, 100));  // 7 blocks each
  EXPECT_EQ(kv.num_materialized_blocks(), 70);
  EXPECT_EQ(kv.num_free_blocks(), (1 << 24) - 70);
  for (int64_t id = 0; id < 10; ++id) {  // fresh blocks come in id order
    const auto table = kv.block_table(id);
    for (size_t i = 0; i < table.size(); ++i) {
      EXPECT_EQ(table[i], static_cast<int32_t>(7 * id + static_cast<int64_t>(i)));
    }
  }
  std::vector<BlockCopy> copies;
  ASSERT_TRUE(kv.swap_out(3, copies));
  EXPECT_EQ(copies.front().dst_block, 0);  // CPU blocks too, lowest id first
  EXPECT_EQ(kv.num_free_cpu_blocks(), (1 << 24) - 7);
  for (int64_t id = 0; id < 10; ++id) kv.free(id);
  EXPECT_EQ(kv.num_free_blocks(), 1 << 24);
  EXPECT_EQ(kv.num_free_cpu_blocks(), 1 << 24);
  EXPECT_LT(kv.num_reserved_bytes() - idle_bytes, 16 * 1024);
  EXPECT_EQ(kv.check_invariants(), "");
}

// The free list of block_manager.h as a plain list over the whole pool: blocks 0..n-1 in
// order; taken from the front; released unhashed to the front, hashed to the back; a prefix
// hit takes a free block out of the middle; reusing a hashed block drops its hash.
class WholeFreeList {
 public:
  explicit WholeFreeList(int32_t num_blocks) : hash_of_(static_cast<size_t>(num_blocks), 0) {
    for (int32_t b = 0; b < num_blocks; ++b) free_.push_back(b);
  }
  int64_t num_free() const { return static_cast<int64_t>(free_.size()); }
  bool is_free(int32_t b) const { return std::find(free_.begin(), free_.end(), b) != free_.end(); }
  // The block holding `hash`, or -1.
  int32_t cached(uint64_t hash) const {
    const auto it = block_of_hash_.find(hash);
    return it == block_of_hash_.end() ? -1 : it->second;
  }
  int32_t take() {
    const int32_t b = free_.front();
    free_.pop_front();
    uncache(b);
    return b;
  }
  void take_hit(int32_t b) { free_.erase(std::find(free_.begin(), free_.end(), b)); }
  void release(int32_t b) {
    if (hash_of_[static_cast<size_t>(b)] != 0) {
      free_.push_back(b);
    } else {
      free_.push_front(b);
    }
  }
  void cache(int32_t b, uint64_t hash) {
    block_of_hash_[hash] = b;
    hash_of_[static_cast<size_t>(b)] = hash;
  }

 private:
  void uncache(int32_t b) {
    if (hash_of_[static_cast<size_t>(b)] == 0) return;
    block_of_hash_.erase(hash_of_[static_cast<size_t>(b)]);
    hash_of_[static_cast<size_t>(b)] = 0;
  }
  std::deque<int32_t> free_;                   // [num free] the front is taken first
  std::vector<uint64_t> hash_of_;              // [num_blocks] 0: no hash
  std::map<uint64_t, int32_t> block_of_hash_;  // cached content -> block
};

// One-block requests whose content is one of a few hundred shared hashes, so that hits,
// evictions, ring compactions and the end of the fresh run all happen: every block handed out
// must be the one the whole list hands out.
TEST(BlockManagerLazy, HandsOutTheBlocksOfAPoolBuiltWhole) {
  constexpr int32_t kNumBlocks = 300;
  BlockManager kv(pool(kNumBlocks));
  WholeFreeList model(kNumBlocks);
  std::mt19937_64 rng(7);
  std::vector<int64_t> live;               // request ids holding one block each
  std::map<int32_t, int32_t> num_holders;  // block -> requests holding it
  std::map<int64_t, int32_t> block_of;     // request id -> its block
  int64_t num_hits = 0;
  for (int64_t id = 0; id < 60000; ++id) {
    const std::vector<uint64_t> hashes{1 + rng() % 500};  // shared: the private bit is clear
    const int32_t hit = model.cached(hashes[0]);
    const bool grow = live.empty() || (rng() % 100 < 55 && (hit >= 0 || model.num_free() > 0));
    if (grow) {
      const PrefixMatch match = kv.match_prefix(hashes);
      ASSERT_EQ(match.num_hit_blocks, hit >= 0 ? 1 : 0) << id;
      ASSERT_EQ(kv.acquire_prefix(id, hashes), match.num_hit_blocks);
      int32_t expected = hit;
      if (hit >= 0) {
        ASSERT_EQ(match.num_hit_free_blocks, model.is_free(hit) ? 1 : 0) << id;
        if (model.is_free(hit)) model.take_hit(hit);
        ++num_hits;
      } else {
        ASSERT_TRUE(kv.allocate_slots(id, 16));
        expected = model.take();
        if (rng() % 4 != 0) {  // some blocks stay unhashed
          kv.cache_blocks(id, hashes, 1);
          model.cache(expected, hashes[0]);
        }
      }
      ASSERT_EQ(kv.block_table(id)[0], expected) << "request " << id;
      block_of[id] = expected;
      ++num_holders[expected];
      live.push_back(id);
    } else {
      const size_t pick = rng() % live.size();
      const int64_t victim = live[pick];
      kv.free(victim);
      const int32_t b = block_of[victim];
      block_of.erase(victim);
      if (--num_holders[b] == 0) model.release(b);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(pick));
    }
    ASSERT_EQ(kv.num_free_blocks(), model.num_free()) << id;
  }
  EXPECT_EQ(kv.num_materialized_blocks(), kNumBlocks);
  EXPECT_GT(num_hits, 1000);
  EXPECT_GT(kv.stats().num_evictions, 1000);
  EXPECT_EQ(kv.check_invariants(), "");
}

}  // namespace
}  // namespace tidal::kv
