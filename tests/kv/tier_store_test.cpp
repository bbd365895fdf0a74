// KV offload tiers (engine/kv/tier_store.h): LRU within a tier and its capacity, the write
// queue, GPU evictions flowing down the tiers, a hand-computed case of hits and bytes per tier,
// load-time arithmetic, and a request loading from the tiers before the scheduler runs it.
#include "engine/kv/tier_store.h"

#include <cstdint>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "engine/kv/block_hash.h"
#include "engine/kv/block_manager.h"
#include "engine/sched/scheduler.h"

namespace tidal::kv {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

TierConfig tier(TierKind kind, int64_t capacity_blocks, double read_bytes_per_s = 1e9,
                int64_t latency_ns = 0, double write_bytes_per_s = 1e12) {
  TierConfig c;
  c.kind = kind;
  c.capacity_blocks = capacity_blocks;
  c.block_bytes = kMiB;
  c.read_bytes_per_s = read_bytes_per_s;
  c.write_bytes_per_s = write_bytes_per_s;
  c.latency_ns = latency_ns;
  return c;
}

// A request whose prompt is `prompt_tokens` long with source blocks of 16 tokens `content`.
Request prompt(int64_t id, int64_t prompt_tokens, const std::vector<uint64_t>& content) {
  Request r;
  r.id = id;
  r.prompt_tokens = prompt_tokens;
  r.output_tokens = 1;
  r.prefix_blocks = content;
  r.prefix_block_tokens = 16;
  return r;
}

TEST(KvTier, EvictsLeastRecentlyUsedAndNeverExceedsItsCapacity) {
  KvTier t(tier(TierKind::cpu, 2));
  EXPECT_EQ(t.write(1, 0).outcome, KvTier::WriteOutcome::written);
  EXPECT_EQ(t.write(2, 0).outcome, KvTier::WriteOutcome::written);
  t.touch(1);  // 2 is now the least recent
  EXPECT_EQ(t.write(1, 0).outcome, KvTier::WriteOutcome::held);
  const KvTier::WriteResult r = t.write(3, 0);
  EXPECT_EQ(r.outcome, KvTier::WriteOutcome::written);
  ASSERT_TRUE(r.evicted);
  EXPECT_EQ(r.victim, 2u);
  EXPECT_TRUE(t.contains(1));
  EXPECT_FALSE(t.contains(2));
  EXPECT_TRUE(t.contains(3));
  for (uint64_t h = 10; h < 1000; ++h) {
    t.write(h, 0);
    ASSERT_LE(t.num_blocks(), 2);
    ASSERT_EQ(t.check_invariants(), "");
  }
  EXPECT_EQ(t.peak_num_blocks(), 2);
}

TEST(KvTier, WriteQueueDropsBlocksBeyondItsBandwidth) {
  // 1 MiB blocks at 1 MiB per ms: the one-second write queue holds 1000 blocks.
  KvTier t(tier(TierKind::disk, 5000, 1e9, 0, kMiB * 1000));
  for (uint64_t h = 1; h <= 1000; ++h) {
    ASSERT_EQ(t.write(h, 0).outcome, KvTier::WriteOutcome::written) << h;
  }
  EXPECT_EQ(t.write(1001, 0).outcome, KvTier::WriteOutcome::dropped);
  EXPECT_FALSE(t.contains(1001));
  EXPECT_EQ(t.write(1001, 1'000'000).outcome, KvTier::WriteOutcome::written);  // 1 ms drained
  EXPECT_EQ(t.write(1002, 1'000'000).outcome, KvTier::WriteOutcome::dropped);
}

TEST(KvTier, BadConfigsAreOneErrorEach) {
  TierConfig unbounded_cpu = tier(TierKind::cpu, TierConfig::kUnbounded);
  EXPECT_THROW(validate(unbounded_cpu, "t"), InputError);
  EXPECT_NO_THROW(validate(tier(TierKind::remote, TierConfig::kUnbounded), "t"));
  EXPECT_THROW(validate(tier(TierKind::cpu, 0), "t"), InputError);
  EXPECT_THROW(validate(tier(TierKind::cpu, 4, 0.0), "t"), InputError);
  EXPECT_THROW(validate(tier(TierKind::cpu, 4, 1e9, 0, 0.0), "t"), InputError);
  EXPECT_THROW(validate(tier(TierKind::cpu, 4, 1e9, -1), "t"), InputError);
  try {
    validate(tier(TierKind::disk, 4, 1e9, 0, -1.0), "fleet.pools[0].kv_tiers[1]");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "fleet.pools[0].kv_tiers[1].write_gb_per_s: must be > 0");
  }
}

// GPU of 8 blocks, a CPU tier of 2 under it, an unbounded remote tier under that. Request 1
// caches 4 blocks; request 2 (8 blocks of other content) reuses all 8 GPU blocks, evicting
// request 1's blocks last block first: 3 and 2 go to the CPU tier, then 1 and 0 push them on
// to the remote tier. So the CPU holds blocks 0, 1 and the remote 2, 3.
struct HandCase {
  std::shared_ptr<KvTier> cpu = std::make_shared<KvTier>(tier(TierKind::cpu, 2, 1e9, 10'000));
  std::shared_ptr<KvTier> remote =
      std::make_shared<KvTier>(tier(TierKind::remote, TierConfig::kUnbounded, 5e8, 1'000'000));
  TierStore store{{cpu, remote}};
  BlockManager kv{BlockManagerConfig{16, 8, 0, true}};
  std::vector<uint64_t> first = engine_block_hashes(prompt(1, 64, {11, 12, 13, 14}), 16);

  HandCase() {
    kv.attach_tiers(&store);
    EXPECT_TRUE(kv.allocate_slots(1, 64));
    kv.cache_blocks(1, first, 4);
    kv.free(1);
    const std::vector<uint64_t> other =
        engine_block_hashes(prompt(2, 128, {21, 22, 23, 24, 25, 26, 27, 28}), 16);
    EXPECT_TRUE(kv.allocate_slots(2, 128));
    kv.cache_blocks(2, other, 8);
    kv.free(2);
  }
};

TEST(TierStore, GpuEvictionsFlowDownTheTiersAndHitsCountPerTier) {
  HandCase c;
  EXPECT_TRUE(c.cpu->contains(c.first[0]) && c.cpu->contains(c.first[1]));
  EXPECT_TRUE(c.remote->contains(c.first[2]) && c.remote->contains(c.first[3]));
  EXPECT_EQ(c.kv.match_prefix(c.first).num_hit_blocks, 0);
  TierMatch match;
  c.store.match(c.first, match);
  EXPECT_EQ(match.tier_of_block, (std::vector<int32_t>{0, 0, 1, 1}));
  // cpu: 10 us + 2 MiB / 1 GB/s; remote: 1 ms + 2 MiB / 0.5 GB/s.
  const int64_t expected_ns = 10'000 + 2 * 1'048'576 + 1'000'000 + 2 * 2'097'152;
  EXPECT_EQ(c.store.load_ns(match), expected_ns);
  EXPECT_EQ(c.store.load(c.first, match), expected_ns);
  const TierStoreStats s = c.store.stats();
  ASSERT_EQ(s.tiers.size(), 2u);
  EXPECT_EQ(s.tiers[0].num_written_blocks, 4);  // all four, two pushed on
  EXPECT_EQ(s.tiers[0].num_evicted_blocks, 2);
  EXPECT_EQ(s.tiers[1].num_written_blocks, 2);
  EXPECT_EQ(s.tiers[0].num_hit_blocks, 2);
  EXPECT_EQ(s.tiers[1].num_hit_blocks, 2);
  EXPECT_EQ(s.tiers[0].written_bytes, 4 * kMiB);
  EXPECT_EQ(s.tiers[1].written_bytes, 2 * kMiB);
  EXPECT_EQ(s.tiers[0].read_bytes, 2 * kMiB);
  EXPECT_EQ(s.tiers[1].read_bytes, 2 * kMiB);
  EXPECT_EQ(s.tiers[0].peak_num_blocks, 2);
  EXPECT_EQ(s.num_loads, 1);
  EXPECT_EQ(s.load_ns, expected_ns);
  // A run stops at the first block no tier holds.
  std::vector<uint64_t> gap = c.first;
  gap[1] = 999;
  c.store.match(gap, match);
  EXPECT_EQ(match.num_hit_blocks(), 1);
}

TEST(TierStore, ARequestLoadsItsTierHitsBeforeTheSchedulerRunsIt) {
  HandCase c;
  sched::SchedulerConfig config;
  config.watermark = 0.0;
  sched::Scheduler scheduler(config, c.kv);
  // 4 full blocks as request 1 plus one token: all 4 blocks are hashable, all in the tiers.
  ASSERT_EQ(scheduler.add_request(prompt(3, 65, {11, 12, 13, 14, 15}), 0),
            sched::RejectReason::none);
  const int64_t load_ns = 10'000 + 2 * 1'048'576 + 1'000'000 + 2 * 2'097'152;
  EXPECT_TRUE(scheduler.schedule(1000).seqs.empty());  // admitted, loading
  EXPECT_EQ(scheduler.num_running(), 1);
  EXPECT_EQ(scheduler.next_wakeup_ns(), 1000 + load_ns);
  scheduler.update({}, 1000);
  EXPECT_TRUE(scheduler.schedule(1000 + load_ns - 1).seqs.empty());
  scheduler.update({}, 1000 + load_ns - 1);
  const sched::StepPlan& plan = scheduler.schedule(1000 + load_ns);
  ASSERT_EQ(plan.seqs.size(), 1u);
  EXPECT_EQ(plan.seqs[0].num_context_tokens, 64);  // the loaded blocks count as computed
  EXPECT_EQ(plan.seqs[0].num_new_tokens, 1);
  const auto events = scheduler.update({}, 1000 + load_ns + 5);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].finished);
  EXPECT_EQ(events[0].num_prefix_hit_tokens, 64);
  EXPECT_EQ(scheduler.next_wakeup_ns(), sched::Scheduler::kNoWakeup);
  EXPECT_EQ(c.kv.check_invariants(), "");
}

}  // namespace
}  // namespace tidal::kv
