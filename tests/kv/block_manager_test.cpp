#include "engine/kv/block_manager.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "engine/kv/block_hash.h"

namespace tidal::kv {
namespace {

BlockManagerConfig pool(int64_t num_gpu_blocks, int64_t num_cpu_blocks = 0) {
  BlockManagerConfig c;
  c.block_size = 16;
  c.num_gpu_blocks = num_gpu_blocks;
  c.num_cpu_blocks = num_cpu_blocks;
  return c;
}

// Hashes for a prompt given as token ids: source blocks of one token each.
std::vector<uint64_t> token_hashes(int64_t id, const std::vector<uint64_t>& tokens) {
  Request r;
  r.id = id;
  r.prompt_tokens = static_cast<int64_t>(tokens.size());
  r.prefix_blocks = tokens;
  r.prefix_block_tokens = 1;
  return engine_block_hashes(r, 16);
}

// Allocates a whole prompt for a new request and caches its full blocks, as a finished prefill.
int64_t prefill(BlockManager& kv, int64_t id, const std::vector<uint64_t>& hashes,
                int64_t num_tokens) {
  const int64_t num_hit_blocks = kv.acquire_prefix(id, hashes);
  EXPECT_TRUE(kv.allocate_slots(id, num_tokens));
  kv.cache_blocks(id, hashes, num_tokens / kv.block_size());
  return num_hit_blocks;
}

TEST(BlockManager, AllocateFreeRoundTrip) {
  BlockManager kv(pool(10));
  EXPECT_EQ(kv.num_free_blocks(), 10);
  EXPECT_EQ(kv.num_blocks_for(0), 0);
  EXPECT_EQ(kv.num_blocks_for(16), 1);
  EXPECT_EQ(kv.num_blocks_for(17), 2);
  ASSERT_TRUE(kv.allocate_slots(1, 33));
  EXPECT_EQ(kv.block_table(1).size(), 3u);
  EXPECT_EQ(kv.num_tokens(1), 33);
  EXPECT_EQ(kv.num_used_blocks(), 3);
  ASSERT_TRUE(kv.allocate_slots(1, 48));  // still three blocks
  EXPECT_EQ(kv.num_used_blocks(), 3);
  ASSERT_TRUE(kv.allocate_slots(2, 7 * 16));
  EXPECT_EQ(kv.num_free_blocks(), 0);
  EXPECT_FALSE(kv.allocate_slots(1, 49));  // no room: nothing changes
  EXPECT_EQ(kv.num_tokens(1), 48);
  EXPECT_FALSE(kv.allocate_slots(3, 1));
  EXPECT_FALSE(kv.has_request(3));
  kv.free(2);
  kv.free(1);
  EXPECT_EQ(kv.num_free_blocks(), 10);
  EXPECT_EQ(kv.num_requests(), 0);
  EXPECT_EQ(kv.check_invariants(), "");
}

// A slot hint is checked before use: a stale one (another request's table, a freed one, one
// out of range) grows the right request's table, as without a hint, and is corrected.
TEST(BlockManager, SlotHintsAreCheckedAndCorrected) {
  BlockManager kv(pool(10));
  int32_t hint_1 = -1;
  int32_t hint_2 = 7;  // out of range
  ASSERT_TRUE(kv.allocate_slots(1, 16, &hint_1));
  ASSERT_TRUE(kv.allocate_slots(2, 16, &hint_2));
  ASSERT_GE(hint_1, 0);
  ASSERT_GE(hint_2, 0);
  EXPECT_NE(hint_1, hint_2);
  int32_t wrong = hint_2;  // request 2's table, given for request 1
  ASSERT_TRUE(kv.allocate_slots(1, 17, &wrong));
  EXPECT_EQ(wrong, hint_1);
  EXPECT_EQ(kv.num_tokens(1), 17);
  EXPECT_EQ(kv.num_tokens(2), 16);
  EXPECT_EQ(kv.block_table(1).size(), 2u);
  // Request 1 freed and back: its old table's place may go to another request first.
  const int32_t freed = hint_1;
  kv.free(1);
  ASSERT_TRUE(kv.allocate_slots(3, 32));
  int32_t stale = freed;
  ASSERT_TRUE(kv.allocate_slots(1, 5, &stale));
  EXPECT_EQ(kv.num_tokens(1), 5);
  EXPECT_EQ(kv.num_tokens(3), 32);
  EXPECT_EQ(kv.block_table(3).size(), 2u);
  EXPECT_EQ(kv.num_used_blocks(), 4);
  int32_t again = stale;
  ASSERT_TRUE(kv.allocate_slots(1, 20, &again));
  EXPECT_EQ(again, stale);
  EXPECT_EQ(kv.num_tokens(1), 20);
  EXPECT_EQ(kv.check_invariants(), "");
}

TEST(BlockManager, TruncateReleasesBlocksBeyondTheTokens) {
  BlockManager kv(pool(10));
  ASSERT_TRUE(kv.allocate_slots(1, 40));
  kv.truncate(1, 17);
  EXPECT_EQ(kv.block_table(1).size(), 2u);
  EXPECT_EQ(kv.num_free_blocks(), 8);
  kv.truncate(1, 16);
  EXPECT_EQ(kv.num_free_blocks(), 9);
  EXPECT_EQ(kv.check_invariants(), "");
}

TEST(BlockManager, CommonPrefixSharesFloorOfCommonOverBlockSize) {
  for (int64_t common = 0; common <= 100; common += 7) {
    BlockManager kv(pool(64));
    std::vector<uint64_t> a(100), b(100);
    for (size_t t = 0; t < 100; ++t) a[t] = b[t] = 500 + t;
    if (common < 100) b[static_cast<size_t>(common)] = 1;
    const auto ha = token_hashes(1, a);
    const auto hb = token_hashes(2, b);
    prefill(kv, 1, ha, 100);
    const int64_t used_before = kv.num_used_blocks();
    const int64_t num_hits = prefill(kv, 2, hb, 100);
    EXPECT_EQ(num_hits, common / 16) << common;
    EXPECT_EQ(kv.num_used_blocks() - used_before, 7 - common / 16);
    const auto ta = kv.block_table(1);
    const auto tb = kv.block_table(2);
    for (int64_t i = 0; i < 7; ++i) {
      EXPECT_EQ(ta[static_cast<size_t>(i)] == tb[static_cast<size_t>(i)], i < common / 16);
    }
    EXPECT_EQ(kv.check_invariants(), "");
  }
}

TEST(BlockManager, FreedCachedBlockIsReusedAsAHit) {
  BlockManager kv(pool(20));
  std::vector<uint64_t> tokens(64);
  for (size_t t = 0; t < 64; ++t) tokens[t] = t;
  const auto hashes = token_hashes(1, tokens);
  prefill(kv, 1, hashes, 64);
  const std::vector<int32_t> blocks(kv.block_table(1).begin(), kv.block_table(1).end());
  kv.free(1);
  EXPECT_EQ(kv.num_free_blocks(), 20);
  EXPECT_EQ(kv.num_cached_blocks(), 4);
  const PrefixMatch match = kv.match_prefix(hashes);
  EXPECT_EQ(match.num_hit_blocks, 4);
  EXPECT_EQ(match.num_hit_free_blocks, 4);
  EXPECT_EQ(kv.acquire_prefix(2, hashes), 4);
  EXPECT_EQ(kv.num_free_blocks(), 16);  // pulled back out of the free list
  const auto table = kv.block_table(2);
  EXPECT_TRUE(std::equal(table.begin(), table.end(), blocks.begin(), blocks.end()));
  EXPECT_EQ(kv.stats().num_hit_blocks, 4);
  EXPECT_EQ(kv.stats().num_queried_blocks, 8);
  EXPECT_EQ(kv.check_invariants(), "");
}

TEST(BlockManager, EvictsLeastRecentlyFreedFirstAndTailBlocksBeforeHeads) {
  BlockManager kv(pool(6));
  std::vector<std::vector<uint64_t>> hashes;
  for (int64_t r = 0; r < 3; ++r) {
    std::vector<uint64_t> tokens(32);
    for (size_t t = 0; t < 32; ++t) tokens[t] = 1000 * static_cast<uint64_t>(r) + t;
    hashes.push_back(token_hashes(r, tokens));
    prefill(kv, r, hashes.back(), 32);  // two blocks each, the pool is full
  }
  kv.free(0);  // freed first: evicted first
  kv.free(2);
  kv.free(1);
  EXPECT_EQ(kv.num_cached_blocks(), 6);
  // Each new block evicts one cached block: request 0's second block, then its first, ...
  const std::vector<std::pair<int64_t, int64_t>> expected_hits{
      {1, 2}, {0, 2}, {0, 1}, {0, 0}};  // (hits of request 0, hits of request 2) after k blocks
  for (int64_t k = 1; k <= 4; ++k) {
    ASSERT_TRUE(kv.allocate_slots(9, 16 * k));
    EXPECT_EQ(kv.match_prefix(hashes[0]).num_hit_blocks, expected_hits[k - 1].first) << k;
    EXPECT_EQ(kv.match_prefix(hashes[2]).num_hit_blocks, expected_hits[k - 1].second) << k;
    EXPECT_EQ(kv.match_prefix(hashes[1]).num_hit_blocks, 2) << k;  // freed last
  }
  EXPECT_EQ(kv.stats().num_evictions, 4);
  EXPECT_EQ(kv.check_invariants(), "");
}

TEST(BlockManager, PrivateBlocksAreFoundOnlyThroughThePreviousTable) {
  BlockManager kv(pool(8));
  Request r;
  r.id = 1;
  r.prompt_tokens = 48;  // no trace hashes: three private blocks
  const auto hashes = engine_block_hashes(r, 16);
  ASSERT_EQ(hashes.size(), 3u);
  for (const uint64_t h : hashes) EXPECT_TRUE(is_private_hash(h));
  prefill(kv, 1, hashes, 48);
  const std::vector<int32_t> previous(kv.block_table(1).begin(), kv.block_table(1).end());
  kv.free(1);
  EXPECT_EQ(kv.num_cached_blocks(), 3);
  EXPECT_EQ(kv.match_prefix(hashes).num_hit_blocks, 0);  // not in the shared index
  EXPECT_EQ(kv.match_prefix(hashes, previous).num_hit_blocks, 3);
  // Free blocks are reused unhashed first, then least recently freed; request 1 released its
  // blocks last block first, so reusing one cached block evicts its block 2.
  ASSERT_TRUE(kv.allocate_slots(2, 16 * 6));  // takes the 5 unhashed blocks and one cached
  EXPECT_EQ(kv.match_prefix(hashes, previous).num_hit_blocks, 2);
  EXPECT_EQ(kv.acquire_prefix(1, hashes, previous), 2);
  EXPECT_EQ(kv.block_table(1)[0], previous[0]);
  EXPECT_EQ(kv.block_table(1)[1], previous[1]);
  EXPECT_EQ(kv.check_invariants(), "");
}

TEST(BlockManager, UnhashedFreeBlocksAreReusedBeforeCachedOnes) {
  BlockManager kv(pool(4));
  std::vector<uint64_t> tokens(32, 3);
  const auto hashes = token_hashes(1, tokens);
  prefill(kv, 1, hashes, 32);
  ASSERT_TRUE(kv.allocate_slots(2, 32));  // no hashes
  kv.free(1);
  kv.free(2);
  ASSERT_TRUE(kv.allocate_slots(3, 32));  // takes request 2's old blocks
  EXPECT_EQ(kv.match_prefix(hashes).num_hit_blocks, 2);
  EXPECT_EQ(kv.stats().num_evictions, 0);
}

TEST(BlockManager, ForkSharesBlocksAndCopiesOnWrite) {
  BlockManager kv(pool(10));
  ASSERT_TRUE(kv.allocate_slots(1, 20));  // one full block and a partial one
  kv.fork(1, 2);
  EXPECT_EQ(kv.num_used_blocks(), 2);
  EXPECT_EQ(kv.num_new_blocks_needed(2, 21), 1);  // the copy of the shared partial block
  ASSERT_TRUE(kv.allocate_slots(2, 21));
  ASSERT_EQ(kv.cow_copies().size(), 1u);
  EXPECT_EQ(kv.cow_copies()[0].src_block, kv.block_table(1)[1]);
  EXPECT_EQ(kv.cow_copies()[0].dst_block, kv.block_table(2)[1]);
  EXPECT_EQ(kv.block_table(1)[0], kv.block_table(2)[0]);  // the full block stays shared
  EXPECT_EQ(kv.num_used_blocks(), 3);
  kv.clear_cow_copies();
  ASSERT_TRUE(kv.allocate_slots(1, 21));  // parent's partial block is now its own
  EXPECT_TRUE(kv.cow_copies().empty());
  EXPECT_EQ(kv.stats().num_cow_copies, 1);
  kv.free(1);
  EXPECT_EQ(kv.num_used_blocks(), 2);
  kv.free(2);
  EXPECT_EQ(kv.num_used_blocks(), 0);
  EXPECT_EQ(kv.check_invariants(), "");
}

TEST(BlockManager, SwapOutAndBackIn) {
  BlockManager kv(pool(8, 4));
  ASSERT_TRUE(kv.allocate_slots(1, 40));  // 3 blocks
  ASSERT_TRUE(kv.allocate_slots(2, 80));  // 5 blocks
  std::vector<BlockCopy> copies;
  EXPECT_FALSE(kv.swap_out(2, copies));  // 5 > 4 CPU blocks: nothing changes
  EXPECT_TRUE(copies.empty());
  EXPECT_FALSE(kv.is_swapped(2));
  const std::vector<int32_t> gpu(kv.block_table(1).begin(), kv.block_table(1).end());
  ASSERT_TRUE(kv.swap_out(1, copies));
  ASSERT_EQ(copies.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(copies[i].src_block, gpu[i]);
    EXPECT_EQ(copies[i].dst_block, kv.block_table(1)[i]);
  }
  EXPECT_TRUE(kv.is_swapped(1));
  EXPECT_EQ(kv.num_free_blocks(), 3);
  EXPECT_EQ(kv.num_free_cpu_blocks(), 1);
  EXPECT_EQ(kv.check_invariants(), "");
  ASSERT_TRUE(kv.allocate_slots(3, 48));  // take the freed GPU blocks
  copies.clear();
  EXPECT_FALSE(kv.swap_in(1, copies));  // no GPU room
  kv.free(3);
  ASSERT_TRUE(kv.swap_in(1, copies));
  EXPECT_EQ(copies.size(), 3u);
  EXPECT_FALSE(kv.is_swapped(1));
  EXPECT_EQ(kv.num_tokens(1), 40);
  EXPECT_EQ(kv.num_free_cpu_blocks(), 4);
  EXPECT_EQ(kv.stats().num_swap_out_blocks, 3);
  EXPECT_EQ(kv.stats().num_swap_in_blocks, 3);
  EXPECT_EQ(kv.check_invariants(), "");
}

TEST(BlockManager, SlotMappingFollowsTheBlockTable) {
  BlockManager kv(pool(8));
  ASSERT_TRUE(kv.allocate_slots(5, 3));  // takes block 0
  ASSERT_TRUE(kv.allocate_slots(1, 20));
  const auto table = kv.block_table(1);
  std::vector<int64_t> slots;
  kv.append_slot_mapping(1, 14, 4, slots);
  const std::vector<int64_t> expected{table[0] * 16 + 14, table[0] * 16 + 15, table[1] * 16 + 0,
                                      table[1] * 16 + 1};
  EXPECT_EQ(slots, expected);
}

TEST(BlockManager, DisabledPrefixCachingNeverHits) {
  BlockManagerConfig c = pool(8);
  c.enable_prefix_caching = false;
  BlockManager kv(c);
  std::vector<uint64_t> tokens(32, 9);
  const auto hashes = token_hashes(1, tokens);
  prefill(kv, 1, hashes, 32);
  kv.free(1);
  EXPECT_EQ(kv.match_prefix(hashes).num_hit_blocks, 0);
  EXPECT_EQ(kv.acquire_prefix(2, hashes), 0);
  EXPECT_EQ(kv.num_cached_blocks(), 0);
}

TEST(BlockManager, MisuseIsALogicError) {
  BlockManager kv(pool(4));
  EXPECT_THROW(kv.block_table(3), std::logic_error);
  EXPECT_THROW(kv.free(3), std::logic_error);
  ASSERT_TRUE(kv.allocate_slots(1, 10));
  EXPECT_THROW(kv.acquire_prefix(1, {}), std::logic_error);
  EXPECT_THROW(kv.truncate(1, 11), std::logic_error);
  std::vector<BlockCopy> copies;
  EXPECT_THROW(kv.swap_in(1, copies), std::logic_error);
}

TEST(BlockManager, ValidateNamesTheKey) {
  BlockManagerConfig c = pool(0);
  try {
    validate(c, "fleet.pools[1]");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "fleet.pools[1].num_gpu_blocks: must be in [1, 2147483647] (got 0)");
  }
  c = pool(4);
  c.block_size = 0;
  EXPECT_THROW(BlockManager{c}, InputError);
  c = pool(4, -1);
  EXPECT_THROW(validate(c, "p"), InputError);
}

// 10^5 seeded random operations (allocate, append, truncate, cache, free, fork, swap out/in,
// prefix hits) keep every invariant after every single one.
TEST(BlockManager, InvariantsHoldUnderRandomOperations) {
  std::mt19937_64 rng(2024);
  BlockManager kv(pool(256, 64));
  // A few prompt families so prefix hits are frequent: family f, token t -> f * 1000 + t.
  auto family_hashes = [](int64_t id, uint64_t family, int64_t num_tokens) {
    std::vector<uint64_t> tokens(static_cast<size_t>(num_tokens));
    for (size_t t = 0; t < tokens.size(); ++t) tokens[t] = family * 1000 + t;
    return token_hashes(id, tokens);
  };
  std::vector<int64_t> live;  // request ids with blocks
  std::vector<std::vector<uint64_t>> hashes_of;
  std::vector<int64_t> num_cached_tokens;  // per id: truncation floor (blocks cached by hash)
  int64_t next_id = 0;
  int64_t num_hits = 0;
  int64_t num_swaps = 0;
  int64_t num_forks = 0;
  for (int op = 0; op < 100000; ++op) {
    const uint64_t kind = rng() % 8;
    if (kind <= 1 || live.empty()) {  // new request, maybe with a prefix hit
      const int64_t id = next_id++;
      const int64_t num_tokens = 1 + static_cast<int64_t>(rng() % 200);
      hashes_of.resize(static_cast<size_t>(next_id));
      num_cached_tokens.resize(static_cast<size_t>(next_id));
      hashes_of[static_cast<size_t>(id)] = family_hashes(id, rng() % 4, num_tokens);
      const auto& hashes = hashes_of[static_cast<size_t>(id)];
      const PrefixMatch match = kv.match_prefix(hashes);
      if (kv.num_free_blocks() < match.num_hit_free_blocks) continue;
      ASSERT_EQ(kv.acquire_prefix(id, hashes), match.num_hit_blocks);
      num_hits += match.num_hit_blocks;
      num_cached_tokens[static_cast<size_t>(id)] = match.num_hit_blocks * 16;
      if (!kv.allocate_slots(id, num_tokens)) {
        kv.free(id);
        continue;
      }
      live.push_back(id);
    } else {
      const size_t pick = rng() % live.size();
      const int64_t id = live[pick];
      const bool swapped = kv.is_swapped(id);
      std::vector<BlockCopy> copies;
      switch (kind) {
        case 2:  // append tokens
          if (!swapped) {
            const int64_t n = kv.num_tokens(id);
            const int64_t grown = n + 1 + static_cast<int64_t>(rng() % 40);
            if (kv.allocate_slots(id, grown)) {
              auto& hashes = hashes_of[static_cast<size_t>(id)];
              extend_private_block_hashes(id, 0, kv.num_blocks_for(grown), hashes);
            }
          }
          break;
        case 3:  // register full blocks
          if (!swapped) {
            const int64_t num_full = kv.num_tokens(id) / 16;
            const auto& hashes = hashes_of[static_cast<size_t>(id)];
            const int64_t num_cached =
                std::min<int64_t>(num_full, static_cast<int64_t>(hashes.size()));
            kv.cache_blocks(id, hashes, num_cached);
            int64_t& floor = num_cached_tokens[static_cast<size_t>(id)];
            floor = std::max(floor, num_cached * 16);
          }
          break;
        case 4:  // free
          kv.free(id);
          live.erase(live.begin() + static_cast<std::ptrdiff_t>(pick));
          break;
        case 5:  // fork
          if (!swapped) {
            const int64_t child = next_id++;
            hashes_of.push_back(hashes_of[static_cast<size_t>(id)]);
            num_cached_tokens.push_back(num_cached_tokens[static_cast<size_t>(id)]);
            kv.fork(id, child);
            live.push_back(child);
            ++num_forks;
          }
          break;
        case 6:  // swap out or in
          if (swapped ? kv.swap_in(id, copies) : kv.swap_out(id, copies)) ++num_swaps;
          break;
        default:  // truncate (never into blocks cached by hash)
          if (!swapped) {
            const int64_t n = kv.num_tokens(id);
            const int64_t floor = num_cached_tokens[static_cast<size_t>(id)];
            if (n > floor) {
              kv.truncate(id,
                          floor + static_cast<int64_t>(rng() % static_cast<uint64_t>(n - floor)));
            }
          }
      }
    }
    // check_invariants counts referenced and listed blocks itself (free + used == total) and
    // compares every reference count with the tables (never negative, never stale).
    ASSERT_EQ(kv.check_invariants(), "") << "after op " << op;
  }
  EXPECT_EQ(kv.check_invariants(), "");
  EXPECT_GT(num_hits, 1000);
  EXPECT_GT(num_swaps, 100);
  EXPECT_GT(num_forks, 100);
  for (const int64_t id : live) kv.free(id);
  EXPECT_EQ(kv.num_free_blocks(), kv.num_gpu_blocks());
  EXPECT_EQ(kv.num_free_cpu_blocks(), kv.num_cpu_blocks());
  EXPECT_EQ(kv.check_invariants(), "");
}

}  // namespace
}  // namespace tidal::kv
