// A replica's LoRA adapters (a pool's `lora`, docs/scenario.md "LoRA adapters"): the adapters it
// keeps loaded, at most max_cpu_loras, least recently used evicted first. A step holding an
// adapter that is not loaded first loads it: its bytes over the pool's load bandwidth, on the
// step's path (vLLM's worker loads a batch's missing adapters before it runs the batch).
#pragma once

#include <cstdint>
#include <list>
#include <span>
#include <string>
#include <unordered_map>

namespace tidal::sim {

struct LoraStats {
  int64_t num_loads = 0;          // adapters loaded (misses)
  int64_t num_hits = 0;           // steps' adapters found loaded
  int64_t num_evictions = 0;      // adapters dropped to make room
  double load_s = 0.0;            // time steps spent loading
  int64_t num_steps = 0;          // steps holding at least one adapter
  int64_t num_adapter_steps = 0;  // sum over steps of the distinct adapters they held
};

class LoraCache {
 public:
  // `capacity` adapters (>= 1), each loaded in `load_seconds`.
  LoraCache(int32_t capacity, double load_seconds);

  // A step holds `adapters` (distinct names): marks them used, loads those not loaded
  // (evicting the least recently used), and returns the seconds the loads take.
  double use(std::span<const std::string* const> adapters);
  bool holds(const std::string& adapter) const { return where_.count(adapter) != 0; }
  // Loading one more adapter would evict one.
  bool full() const { return static_cast<int32_t>(lru_.size()) >= capacity_; }
  const LoraStats& stats() const { return stats_; }

 private:
  int32_t capacity_;
  double load_seconds_;
  std::list<std::string> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<std::string>::iterator> where_;
  LoraStats stats_;
};

}  // namespace tidal::sim
