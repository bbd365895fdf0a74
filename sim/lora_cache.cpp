#include "sim/lora_cache.h"

namespace tidal::sim {

LoraCache::LoraCache(int32_t capacity, double load_seconds)
    : capacity_(capacity), load_seconds_(load_seconds) {}

double LoraCache::use(std::span<const std::string* const> adapters) {
  if (adapters.empty()) return 0.0;
  ++stats_.num_steps;
  stats_.num_adapter_steps += static_cast<int64_t>(adapters.size());
  double seconds = 0.0;
  for (const std::string* adapter : adapters) {
    if (auto it = where_.find(*adapter); it != where_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      ++stats_.num_hits;
      continue;
    }
    // A step's own adapters are the most recent: with capacity below the step's adapters the
    // oldest of them are dropped again, and each is loaded.
    if (static_cast<int32_t>(lru_.size()) >= capacity_) {
      where_.erase(lru_.back());
      lru_.pop_back();
      ++stats_.num_evictions;
    }
    lru_.push_front(*adapter);
    where_.emplace(*adapter, lru_.begin());
    ++stats_.num_loads;
    seconds += load_seconds_;
  }
  stats_.load_s += seconds;
  return seconds;
}

}  // namespace tidal::sim
