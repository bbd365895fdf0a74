// Routers that keep related requests together: session affinity, prefix-aware consistent
// hashing with bounded loads, and cache-aware (longest prefix-cache match).
#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/kv/block_hash.h"
#include "engine/kv/tier_store.h"
#include "sim/router_policies.h"

namespace tidal::sim {
namespace {

uint64_t mix64(uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t fnv1a(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Sticky by session id: a session's requests go where its first one went, unless that
// replica is no longer usable or is overloaded (more than load_factor x mean + 1 outstanding);
// then the least loaded replica takes over and becomes the session's new home. Requests
// without a session go to the least loaded replica.
class SessionAffinityRouter final : public Router {
 public:
  explicit SessionAffinityRouter(const RouterSpec& spec) : load_factor_(spec.load_factor) {}
  int32_t route(const Request& request, std::span<const ReplicaLoad> replicas) override {
    if (request.session_id.empty()) return least_outstanding_replica(replicas);
    const auto it = home_.find(request.session_id);
    if (it != home_.end()) {
      const auto home = static_cast<size_t>(it->second);
      if (home < replicas.size() && is_usable(replicas[home]) &&
          !is_overloaded(replicas[home], mean_outstanding(replicas), load_factor_)) {
        return it->second;
      }
    }
    const int32_t chosen = least_outstanding_replica(replicas);
    if (chosen >= 0) home_[request.session_id] = chosen;
    return chosen;
  }

 private:
  double load_factor_;
  std::unordered_map<std::string, int32_t> home_;  // session id -> replica (lookups only)
};

// Consistent hashing with bounded loads: the key (the request's first `prefix_blocks` prompt
// block hashes; else its session id; else its id) lands on a ring of virtual_nodes points per
// replica; walking clockwise, the first usable replica whose outstanding requests stay within
// ceil(load_factor x (outstanding + 1) / usable replicas) takes it.
class PrefixAwareRouter final : public Router {
 public:
  explicit PrefixAwareRouter(const RouterSpec& spec)
      : load_factor_(spec.load_factor),
        prefix_blocks_(spec.prefix_blocks),
        virtual_nodes_(spec.virtual_nodes) {}

  int32_t route(const Request& request, std::span<const ReplicaLoad> replicas) override {
    if (replicas.size() != ring_replicas_) build_ring(replicas.size());
    int64_t total = 0;
    int64_t num_usable = 0;
    for (const ReplicaLoad& load : replicas) {
      if (!is_usable(load)) continue;
      total += load.num_outstanding;
      ++num_usable;
    }
    if (num_usable == 0) return -1;
    const double bound =
        std::ceil(load_factor_ * static_cast<double>(total + 1) / static_cast<double>(num_usable));
    const uint64_t key = key_of(request);
    auto it = std::lower_bound(ring_.begin(), ring_.end(), std::make_pair(key, int32_t{-1}));
    for (size_t step = 0; step < ring_.size(); ++step, ++it) {
      if (it == ring_.end()) it = ring_.begin();
      const ReplicaLoad& load = replicas[static_cast<size_t>(it->second)];
      if (is_usable(load) && static_cast<double>(load.num_outstanding + 1) <= bound) {
        return it->second;
      }
    }
    return least_outstanding_replica(replicas);
  }

 private:
  uint64_t key_of(const Request& request) const {
    if (!request.prefix_blocks.empty()) {
      uint64_t h = 0x51ed270b27d5a3b1ULL;
      const size_t n = std::min(request.prefix_blocks.size(), static_cast<size_t>(prefix_blocks_));
      for (size_t i = 0; i < n; ++i) h = mix64(h ^ request.prefix_blocks[i]);
      return h;
    }
    if (!request.session_id.empty()) return mix64(fnv1a(request.session_id));
    return mix64(static_cast<uint64_t>(request.id));
  }

  void build_ring(size_t num_replicas) {
    ring_.clear();
    for (size_t r = 0; r < num_replicas; ++r) {
      for (int32_t v = 0; v < virtual_nodes_; ++v) {
        ring_.emplace_back(mix64((static_cast<uint64_t>(r) << 20) ^ static_cast<uint64_t>(v)),
                           static_cast<int32_t>(r));
      }
    }
    std::sort(ring_.begin(), ring_.end());
    ring_replicas_ = num_replicas;
  }

  double load_factor_;
  int32_t prefix_blocks_;
  int32_t virtual_nodes_;
  size_t ring_replicas_ = 0;
  std::vector<std::pair<uint64_t, int32_t>> ring_;  // [replicas x virtual_nodes] (point, replica)
};

// The usable replica whose prefix cache holds the longest leading match of the request's
// prompt blocks (BlockManager::match_prefix; ties: fewer outstanding, then lowest index),
// unless nothing matches or that replica is overloaded: then the least loaded replica. With
// tier_hit_weight > 0 the match goes on in the replica's offload tiers where the GPU's stopped
// (kv::TierStore::match), each block found there scoring tier_hit_weight of a GPU block (its
// load costs time a GPU hit does not).
class CacheAwareRouter final : public Router {
 public:
  explicit CacheAwareRouter(const RouterSpec& spec)
      : load_factor_(spec.load_factor), tier_hit_weight_(spec.tier_hit_weight) {}
  int32_t route(const Request& request, std::span<const ReplicaLoad> replicas) override {
    int32_t best = -1;
    double best_hit = 0.0;
    int32_t hashed_block_size = 0;
    for (size_t i = 0; i < replicas.size(); ++i) {
      const ReplicaLoad& load = replicas[i];
      if (!is_usable(load) || load.block_manager == nullptr) continue;
      const int32_t block_size = load.block_manager->block_size();
      if (block_size != hashed_block_size) {
        hashes_ = kv::engine_block_hashes(request, block_size);
        hashed_block_size = block_size;
      }
      const double hit = score(*load.block_manager);
      if (hit > best_hit ||
          (hit == best_hit && best >= 0 &&
           load.num_outstanding < replicas[static_cast<size_t>(best)].num_outstanding)) {
        best_hit = hit;
        best = static_cast<int32_t>(i);
      }
    }
    if (best < 0 || best_hit == 0.0 ||
        is_overloaded(replicas[static_cast<size_t>(best)], mean_outstanding(replicas),
                      load_factor_)) {
      return least_outstanding_replica(replicas);
    }
    return best;
  }

 private:
  // GPU hit blocks, plus tier_hit_weight per block the tiers hold beyond them.
  double score(const kv::BlockManager& block_manager) {
    const int64_t gpu_hit = block_manager.match_prefix(hashes_).num_hit_blocks;
    double hit = static_cast<double>(gpu_hit);
    const kv::TierStore* tiers = block_manager.tiers();
    if (tier_hit_weight_ > 0.0 && tiers != nullptr &&
        gpu_hit < static_cast<int64_t>(hashes_.size())) {
      tiers->match(std::span<const uint64_t>(hashes_).subspan(static_cast<size_t>(gpu_hit)),
                   tier_match_);
      hit += tier_hit_weight_ * static_cast<double>(tier_match_.num_hit_blocks());
    }
    return hit;
  }

  double load_factor_;
  double tier_hit_weight_;
  std::vector<uint64_t> hashes_;  // [full prompt blocks] of the request being routed
  kv::TierMatch tier_match_;      // where the tiers hold the rest of them (reused)
};

}  // namespace

std::unique_ptr<Router> make_session_affinity_router(const RouterSpec& spec) {
  return std::make_unique<SessionAffinityRouter>(spec);
}
std::unique_ptr<Router> make_prefix_aware_router(const RouterSpec& spec) {
  return std::make_unique<PrefixAwareRouter>(spec);
}
std::unique_ptr<Router> make_cache_aware_router(const RouterSpec& spec) {
  return std::make_unique<CacheAwareRouter>(spec);
}

}  // namespace tidal::sim
