#include "sim/router.h"

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
      if (replicas[static_cast<size_t>(i)].state == ReplicaState::warm) {
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
      if (load.state != ReplicaState::warm) continue;
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
  std::unique_ptr<Router> (*make)();
};

constexpr std::array<RouterEntry, 2> kRouters{{
    {"round_robin", [] { return std::unique_ptr<Router>(new RoundRobinRouter()); }},
    {"least_outstanding_requests",
     [] { return std::unique_ptr<Router>(new LeastOutstandingRouter()); }},
}};

constexpr std::array<std::string_view, kRouters.size()> kRouterNames{kRouters[0].name,
                                                                     kRouters[1].name};

}  // namespace

std::span<const std::string_view> router_names() {
  return kRouterNames;
}

std::unique_ptr<Router> make_router(std::string_view name) {
  for (const RouterEntry& entry : kRouters) {
    if (entry.name == name) return entry.make();
  }
  throw std::logic_error("make_router: unknown router '" + std::string(name) + "'");
}

}  // namespace tidal::sim
