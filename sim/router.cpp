#include "sim/router.h"

#include "sim/router_policies.h"

#include <array>
#include <stdexcept>
#include <string>

namespace tidal::sim {
namespace {

// Cycles through the warm replicas in index order.
class RoundRobinRouter final : public Router {
 public:
  int32_t route(const Request&, std::span<const ReplicaLoad> replicas) override {
    const auto n = static_cast<int32_t>(replicas.size());
    for (int32_t k = 0; k < n; ++k) {
      const int32_t i = (next_ + k) % n;
      if (is_usable(replicas[static_cast<size_t>(i)])) {
        next_ = (i + 1) % n;
        return i;
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
    int32_t best = -1;
    for (int32_t k = 0; k < n; ++k) {
      const int32_t i = (next_ + k) % n;
      const ReplicaLoad& load = replicas[static_cast<size_t>(i)];
      if (!is_usable(load)) continue;
      if (best < 0 || load.num_outstanding < replicas[static_cast<size_t>(best)].num_outstanding) {
        best = i;
      }
    }
    if (best >= 0) next_ = (best + 1) % n;
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
