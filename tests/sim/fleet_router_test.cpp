// Each router's choice on constructed replica states.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "engine/kv/block_hash.h"
#include "engine/kv/block_manager.h"
#include "engine/kv/tier_store.h"
#include "sim/router.h"

namespace tidal::sim {
namespace {

std::vector<ReplicaLoad> loads(std::initializer_list<int64_t> outstanding) {
  std::vector<ReplicaLoad> result;
  for (int64_t n : outstanding) {
    ReplicaLoad load;
    load.num_outstanding = n;
    result.push_back(load);
  }
  return result;
}

std::unique_ptr<Router> router(const std::string& policy, uint64_t seed = 1) {
  RouterSpec spec;
  spec.policy = policy;
  return make_router(spec, seed);
}

Request session_request(int64_t id, const std::string& session) {
  Request r;
  r.id = id;
  r.session_id = session;
  return r;
}

TEST(FleetRouter, RandomIsSeededAndPicksOnlyUsableReplicas) {
  std::vector<ReplicaLoad> view = loads({0, 0, 0, 0});
  view[1].state = ReplicaState::draining;
  view[2].accepting = false;  // at max_inputs
  auto a = router("random", 9);
  auto b = router("random", 9);
  std::vector<int32_t> seen(4, 0);
  for (int i = 0; i < 200; ++i) {
    const int32_t choice = a->route(Request{}, view);
    EXPECT_EQ(choice, b->route(Request{}, view));
    ++seen[static_cast<size_t>(choice)];
  }
  EXPECT_EQ(seen[1], 0);
  EXPECT_EQ(seen[2], 0);
  EXPECT_GT(seen[0], 50);
  EXPECT_GT(seen[3], 50);
  for (ReplicaLoad& l : view) l.state = ReplicaState::loading;
  EXPECT_EQ(a->route(Request{}, view), -1);
}

TEST(FleetRouter, LeastOutstandingTokensLooksAtTokensNotRequests) {
  std::vector<ReplicaLoad> view = loads({1, 5, 3});
  view[0].num_outstanding_tokens = 4000;  // one essay
  view[1].num_outstanding_tokens = 400;   // five classifications
  view[2].num_outstanding_tokens = 900;
  EXPECT_EQ(router("least_outstanding_tokens")->route(Request{}, view), 1);
  EXPECT_EQ(router("least_outstanding_requests")->route(Request{}, view), 0);
}

TEST(FleetRouter, PowerOfTwoTakesTheLighterOfTwoDraws) {
  std::vector<ReplicaLoad> view = loads({7, 2});
  auto p2c = router("power_of_two", 3);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(p2c->route(Request{}, view), 1);
  view = loads({5, 1, 9});
  int32_t count_heaviest = 0;
  for (int i = 0; i < 100; ++i) count_heaviest += p2c->route(Request{}, view) == 2 ? 1 : 0;
  EXPECT_EQ(count_heaviest, 0);  // the heaviest loses every pairing
}

TEST(FleetRouter, SessionAffinityIsStickyUntilOverloaded) {
  auto sticky = router("session_affinity");
  std::vector<ReplicaLoad> view = loads({0, 0, 0});
  const int32_t home = sticky->route(session_request(1, "s1"), view);
  EXPECT_EQ(home, 0);
  view[0].num_outstanding = 2;  // mean 2/3: overloaded above 1.25 * 0.67 + 1 = 1.83
  view[1].num_outstanding = 0;
  EXPECT_EQ(sticky->route(session_request(2, "s1"), view), 1);  // falls back, re-homes
  view = loads({1, 1, 1});
  EXPECT_EQ(sticky->route(session_request(3, "s1"), view), 1);  // the new home sticks
  view[1].state = ReplicaState::stopped;
  EXPECT_EQ(sticky->route(session_request(4, "s1"), view), 0);
  EXPECT_EQ(sticky->route(session_request(5, ""), loads({3, 1, 2})), 1);  // no session: least
}

TEST(FleetRouter, PrefixAwareHashesPrefixesWithBoundedLoad) {
  auto prefix = router("prefix_aware");
  Request a;
  a.prefix_blocks = {11, 22, 33, 44, 55};
  a.prefix_block_tokens = 16;
  Request b = a;
  b.prefix_blocks[4] = 99;  // differs only after the first 4 blocks: same key
  std::vector<ReplicaLoad> view = loads({0, 0, 0, 0});
  const int32_t first = prefix->route(a, view);
  ASSERT_GE(first, 0);
  EXPECT_EQ(prefix->route(b, view), first);
  // Bounded load: with the home at the bound ceil(1.25 * (total + 1) / 4), the walk moves on.
  view[static_cast<size_t>(first)].num_outstanding = 3;  // total 3 -> bound ceil(1.25) = 2
  const int32_t moved = prefix->route(a, view);
  EXPECT_NE(moved, first);
  EXPECT_GE(moved, 0);
}

// A block pool whose prefix cache holds the first `num_blocks` engine blocks of `request`.
kv::BlockManager cached_pool(const Request& request, int64_t num_blocks) {
  kv::BlockManagerConfig config;
  config.block_size = 16;
  config.num_gpu_blocks = 64;
  config.enable_prefix_caching = true;
  kv::BlockManager pool(config);
  const std::vector<uint64_t> hashes = kv::engine_block_hashes(request, 16);
  EXPECT_TRUE(pool.allocate_slots(1000, num_blocks * 16));
  pool.cache_blocks(1000, hashes, num_blocks);
  pool.free(1000);  // cached free blocks still match
  return pool;
}

TEST(FleetRouter, CacheAwarePicksTheLongestMatchUnlessOverloaded) {
  Request request;
  request.id = 7;
  request.prompt_tokens = 128;  // 8 blocks of 16
  request.prefix_block_tokens = 16;
  for (uint64_t b = 0; b < 8; ++b) request.prefix_blocks.push_back(100 + b);
  kv::BlockManager short_match = cached_pool(request, 2);
  kv::BlockManager long_match = cached_pool(request, 6);
  kv::BlockManager no_match = cached_pool(Request{}, 0);
  std::vector<ReplicaLoad> view = loads({1, 2, 0});
  view[0].block_manager = &short_match;
  view[1].block_manager = &long_match;
  view[2].block_manager = &no_match;
  auto cache = router("cache_aware");
  EXPECT_EQ(cache->route(request, view), 1);  // 6 blocks beat 2
  view[1].num_outstanding = 5;                // mean 2: overloaded above 1.25 * 2 + 1
  EXPECT_EQ(cache->route(request, view), 2);  // least loaded instead
}

TEST(FleetRouter, CacheAwareScoresTierHitsBelowGpuHits) {
  Request request;
  request.id = 7;
  request.prompt_tokens = 128;  // 8 blocks of 16
  request.prefix_block_tokens = 16;
  for (uint64_t b = 0; b < 8; ++b) request.prefix_blocks.push_back(100 + b);
  const std::vector<uint64_t> hashes = kv::engine_block_hashes(request, 16);
  // Replica 0: 2 blocks on its GPU, the next 6 in its CPU tier; replica 1: 4 on its GPU.
  kv::TierConfig cpu;
  cpu.capacity_blocks = 16;
  cpu.block_bytes = 1e6;
  cpu.read_bytes_per_s = 1e10;
  cpu.write_bytes_per_s = 1e10;
  auto tier = std::make_shared<kv::KvTier>(cpu);
  for (size_t b = 2; b < hashes.size(); ++b) tier->write(hashes[b], 0);
  kv::TierStore tiers({tier});
  kv::BlockManager gpu_and_tier = cached_pool(request, 2);
  gpu_and_tier.attach_tiers(&tiers);
  kv::BlockManager gpu_only = cached_pool(request, 4);
  std::vector<ReplicaLoad> view = loads({0, 0});
  view[0].block_manager = &gpu_and_tier;
  view[1].block_manager = &gpu_only;
  const auto route_with = [&](double weight) {
    RouterSpec spec;
    spec.policy = "cache_aware";
    spec.tier_hit_weight = weight;
    return make_router(spec, 1)->route(request, view);
  };
  EXPECT_EQ(route_with(0.0), 1);   // GPU hits only: 4 beat 2
  EXPECT_EQ(route_with(0.25), 1);  // 2 + 6 x 0.25 = 3.5 < 4
  EXPECT_EQ(route_with(0.5), 0);   // 2 + 6 x 0.5 = 5 > 4
}

TEST(FleetRouter, CacheAwareFallsBackToLeastLoadedWithoutMatches) {
  auto cache = router("cache_aware");
  std::vector<ReplicaLoad> view = loads({4, 2, 3});  // no block managers: nothing matches
  EXPECT_EQ(cache->route(Request{}, view), 1);
}

}  // namespace
}  // namespace tidal::sim
