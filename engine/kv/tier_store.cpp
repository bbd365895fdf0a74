#include "engine/kv/tier_store.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "base/input_error.h"

namespace tidal::kv {

namespace {

constexpr int64_t kMaxTierBlocks = std::numeric_limits<int32_t>::max();

const TierConfig& validated(const TierConfig& config) {
  validate(config, "kv_tier");
  return config;
}

}  // namespace

std::string_view tier_kind_name(TierKind kind) {
  switch (kind) {
    case TierKind::cpu:
      return "cpu";
    case TierKind::disk:
      return "disk";
    case TierKind::remote:
      return "remote";
  }
  return "cpu";
}

void validate(const TierConfig& config, std::string_view json_path) {
  const std::string path(json_path);
  if (config.capacity_blocks == TierConfig::kUnbounded) {
    if (config.kind != TierKind::remote) {
      throw InputError(path + ".capacity_gib: missing (required for a " +
                       std::string(tier_kind_name(config.kind)) +
                       " tier; only a remote tier may be unbounded)");
    }
  } else if (config.capacity_blocks < 1 || config.capacity_blocks > kMaxTierBlocks) {
    throw InputError(path + ".capacity_gib: must hold between 1 and " +
                     std::to_string(kMaxTierBlocks) + " blocks (got " +
                     std::to_string(config.capacity_blocks) + ")");
  }
  if (!(config.block_bytes > 0.0) || !std::isfinite(config.block_bytes)) {
    throw InputError(path + ": a KV block of " + std::to_string(config.block_bytes) +
                     " bytes; must be > 0");
  }
  if (!(config.read_bytes_per_s > 0.0) || !std::isfinite(config.read_bytes_per_s)) {
    throw InputError(path + ".read_gb_per_s: must be > 0");
  }
  if (!(config.write_bytes_per_s > 0.0) || !std::isfinite(config.write_bytes_per_s)) {
    throw InputError(path + ".write_gb_per_s: must be > 0");
  }
  if (config.latency_ns < 0) throw InputError(path + ".latency_ms: must be >= 0");
}

// ---- KvTier ----------------------------------------------------------------------------------

KvTier::KvTier(const TierConfig& config)
    : config_(validated(config)),
      write_ns_per_block_(config_.block_bytes / config_.write_bytes_per_s * 1e9),
      node_of_hash_(config_.capacity_blocks == TierConfig::kUnbounded
                        ? 1024
                        : std::min<int64_t>(config_.capacity_blocks, 1 << 20)) {}

void KvTier::unlink(int32_t node) {
  Node& n = nodes_[static_cast<size_t>(node)];
  if (n.prev >= 0) {
    nodes_[static_cast<size_t>(n.prev)].next = n.next;
  } else {
    head_ = n.next;
  }
  if (n.next >= 0) {
    nodes_[static_cast<size_t>(n.next)].prev = n.prev;
  } else {
    tail_ = n.prev;
  }
  n.prev = n.next = -1;
}

void KvTier::push_front(int32_t node) {
  Node& n = nodes_[static_cast<size_t>(node)];
  n.prev = -1;
  n.next = head_;
  if (head_ >= 0) nodes_[static_cast<size_t>(head_)].prev = node;
  head_ = node;
  if (tail_ < 0) tail_ = node;
}

void KvTier::touch(uint64_t hash) {
  const int32_t node = node_of_hash_.find(hash);
  if (node == FlatMap::kAbsent || node == head_) return;
  unlink(node);
  push_front(node);
}

KvTier::WriteResult KvTier::write(uint64_t hash, int64_t now_ns) {
  WriteResult result;
  if (contains(hash)) {
    touch(hash);
    result.outcome = WriteOutcome::held;
    return result;
  }
  const double now = static_cast<double>(now_ns);
  const double queue_start = std::max(write_queue_done_ns_, now);
  if (queue_start + write_ns_per_block_ - now > static_cast<double>(kWriteBacklogNs)) {
    return result;  // dropped
  }
  write_queue_done_ns_ = queue_start + write_ns_per_block_;
  result.outcome = WriteOutcome::written;
  if (config_.capacity_blocks != TierConfig::kUnbounded && num_blocks_ == config_.capacity_blocks) {
    const int32_t victim = tail_;
    result.evicted = true;
    result.victim = nodes_[static_cast<size_t>(victim)].hash;
    unlink(victim);
    node_of_hash_.erase(result.victim);
    free_nodes_.push_back(victim);
    --num_blocks_;
  }
  int32_t node;
  if (!free_nodes_.empty()) {
    node = free_nodes_.back();
    free_nodes_.pop_back();
  } else {
    if (static_cast<int64_t>(nodes_.size()) >= kMaxTierBlocks) {
      throw std::logic_error("kv::KvTier: more than 2^31 - 1 blocks in one tier");
    }
    node = static_cast<int32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  nodes_[static_cast<size_t>(node)].hash = hash;
  push_front(node);
  node_of_hash_.insert(hash, node);
  ++num_blocks_;
  peak_num_blocks_ = std::max(peak_num_blocks_, num_blocks_);
  return result;
}

std::string KvTier::check_invariants() const {
  int64_t num_listed = 0;
  int32_t prev = -1;
  for (int32_t n = head_; n >= 0; n = nodes_[static_cast<size_t>(n)].next) {
    const Node& node = nodes_[static_cast<size_t>(n)];
    if (node.prev != prev) return "LRU list: broken back link";
    if (node_of_hash_.find(node.hash) != n) return "LRU list: a block missing from the index";
    prev = n;
    if (++num_listed > num_blocks_) return "LRU list: longer than num_blocks";
  }
  if (prev != tail_) return "LRU list: the tail is not the last node";
  if (num_listed != num_blocks_) return "LRU list: shorter than num_blocks";
  if (node_of_hash_.size() != num_blocks_) return "index size differs from num_blocks";
  if (config_.capacity_blocks != TierConfig::kUnbounded && num_blocks_ > config_.capacity_blocks) {
    return "more blocks than the capacity";
  }
  return "";
}

// ---- TierStore -------------------------------------------------------------------------------

TierStore::TierStore(std::vector<std::shared_ptr<KvTier>> tiers)
    : tiers_(std::move(tiers)), stats_(tiers_.size()) {
  for (const auto& tier : tiers_) {
    if (tier == nullptr) throw std::logic_error("kv::TierStore: a null tier");
  }
}

TierStoreStats TierStore::stats() const {
  TierStoreStats s;
  s.tiers = stats_;
  for (size_t i = 0; i < tiers_.size(); ++i)
    s.tiers[i].peak_num_blocks = tiers_[i]->peak_num_blocks();
  s.num_loads = num_loads_;
  s.load_ns = load_ns_total_;
  return s;
}

void TierStore::on_gpu_evict(uint64_t hash) {
  if (!tiers_.empty()) write_down(0, hash);
}

void TierStore::write_down(size_t i, uint64_t hash) {
  for (; i < tiers_.size(); ++i) {
    KvTier& tier = *tiers_[i];
    TierStats& s = stats_[i];
    const KvTier::WriteResult result = tier.write(hash, now_ns_);
    if (result.outcome == KvTier::WriteOutcome::dropped) {
      ++s.num_dropped_blocks;
      return;
    }
    if (result.outcome == KvTier::WriteOutcome::held) return;
    ++s.num_written_blocks;
    s.written_bytes += tier.config().block_bytes;
    if (!result.evicted) return;
    ++s.num_evicted_blocks;
    hash = result.victim;
  }
}

void TierStore::match(std::span<const uint64_t> hashes, TierMatch& match) const {
  match.tier_of_block.clear();
  for (const uint64_t hash : hashes) {
    int32_t found = -1;
    for (size_t i = 0; i < tiers_.size() && found < 0; ++i) {
      if (tiers_[i]->contains(hash)) found = static_cast<int32_t>(i);
    }
    if (found < 0) return;
    match.tier_of_block.push_back(found);
  }
}

int64_t TierStore::load_ns(const TierMatch& match) const {
  std::vector<int64_t> num_blocks(tiers_.size(), 0);  // [num tiers]
  for (const int32_t t : match.tier_of_block) ++num_blocks[static_cast<size_t>(t)];
  double ns = 0.0;
  for (size_t i = 0; i < tiers_.size(); ++i) {
    if (num_blocks[i] == 0) continue;
    const TierConfig& c = tiers_[i]->config();
    ns += static_cast<double>(c.latency_ns) +
          static_cast<double>(num_blocks[i]) * c.block_bytes / c.read_bytes_per_s * 1e9;
  }
  return static_cast<int64_t>(std::llround(ns));
}

int64_t TierStore::load(std::span<const uint64_t> hashes, const TierMatch& match) {
  if (match.tier_of_block.empty()) return 0;
  for (size_t b = 0; b < match.tier_of_block.size(); ++b) {
    const auto t = static_cast<size_t>(match.tier_of_block[b]);
    tiers_[t]->touch(hashes[b]);
    ++stats_[t].num_hit_blocks;
    stats_[t].read_bytes += tiers_[t]->config().block_bytes;
  }
  const int64_t ns = load_ns(match);
  ++num_loads_;
  load_ns_total_ += ns;
  return ns;
}

}  // namespace tidal::kv
