#include "sim/router.h"

#include "sim/router_policies.h"

#include <array>
#include <stdexcept>
#include <string>
#include <utility>

namespace tidal::sim {
namespace {

// Cycles through the warm replicas in index order.
class RoundRobinRouter final : public Router {
 public:
  int32_t route(const Request&, std::span<const ReplicaLoad> replicas) override {
    const auto n = static_cast<int32_t>(replicas.size());
    if (n == 0) return -1;
    const int32_t start = next_ < n ? next_ : next_ % n;  // fewer replicas than last time
    for (const auto& [from, to] : {std::pair{start, n}, std::pair{0, start}}) {
      for (int32_t i = from; i < to; ++i) {
        if (is_usable(replicas[static_cast<size_t>(i)])) {
          next_ = i + 1 < n ? i + 1 : 0;
          return i;
        }
      }
    }
    return -1;
  }

 private:
  int32_t next_ = 0;
};

// The warm replica with the fewest outstanding requests; ties go to the first one at or after
// the replica after the previous choice, so equal loads spread round-robin.
class LeastOutstandingRouter final : public Router {
 public:
  int32_t route(const Request&, std::span<const ReplicaLoad> replicas) override {
    const auto n = static_cast<int32_t>(replicas.size());
    if (n == 0) return -1;
    const int32_t start = next_ < n ? next_ : next_ % n;  // fewer replicas than last time
    int32_t best = -1;
    int64_t best_outstanding = 0;
    for (const auto& [from, to] : {std::pair{start, n}, std::pair{0, start}}) {
      for (int32_t i = from; i < to; ++i) {
        const ReplicaLoad& load = replicas[static_cast<size_t>(i)];
        if (!is_usable(load)) continue;
        if (best < 0 || load.num_outstanding < best_outstanding) {
          best = i;
          best_outstanding = load.num_outstanding;
        }
      }
    }
    if (best >= 0) next_ = best + 1 < n ? best + 1 : 0;
    return best;
  }

 private:
  int32_t next_ = 0;
};

struct RouterEntry {
  std::string_view name;
  std::unique_ptr<Router> (*make)(const RouterSpec& spec, uint64_t seed);
};

constexpr std::array<RouterEntry, 9> kRouters{{
    {"round_robin",
     [](const RouterSpec&, uint64_t) { return std::unique_ptr<Router>(new RoundRobinRouter()); }},
    {"least_outstanding_requests",
     [](const RouterSpec&, uint64_t) {
       return std::unique_ptr<Router>(new LeastOutstandingRouter());
     }},
    {"random", [](const RouterSpec&, uint64_t seed) { return make_random_router(seed); }},
    {"least_outstanding_tokens",
     [](const RouterSpec&, uint64_t) { return make_least_tokens_router(); }},
    {"power_of_two",
     [](const RouterSpec&, uint64_t seed) { return make_power_of_two_router(seed); }},
    {"session_affinity",
     [](const RouterSpec& spec, uint64_t) { return make_session_affinity_router(spec); }},
    {"prefix_aware",
     [](const RouterSpec& spec, uint64_t) { return make_prefix_aware_router(spec); }},
    {"cache_aware", [](const RouterSpec& spec, uint64_t) { return make_cache_aware_router(spec); }},
    {"lora_affinity",
     [](const RouterSpec& spec, uint64_t) { return make_lora_affinity_router(spec); }},
}};

constexpr std::array<std::string_view, kRouters.size()> kRouterNames{
    kRouters[0].name, kRouters[1].name, kRouters[2].name, kRouters[3].name, kRouters[4].name,
    kRouters[5].name, kRouters[6].name, kRouters[7].name, kRouters[8].name};

}  // namespace

std::span<const std::string_view> router_names() {
  return kRouterNames;
}

std::unique_ptr<Router> make_router(const RouterSpec& spec, uint64_t seed) {
  for (const RouterEntry& entry : kRouters) {
    if (entry.name == spec.policy) return entry.make(spec, seed);
  }
  throw std::logic_error("make_router: unknown router '" + spec.policy + "'");
}

std::unique_ptr<Router> make_router(std::string_view name) {
  RouterSpec spec;
  spec.policy = std::string(name);
  return make_router(spec, 0);
}

}  // namespace tidal::sim
