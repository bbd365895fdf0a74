// Load-based routers: random, least outstanding tokens, power of two choices.
#include <vector>

#include "sim/router_policies.h"
#include "traces/random.h"

namespace tidal::sim {
namespace {

void usable_indices(std::span<const ReplicaLoad> replicas, std::vector<int32_t>& out) {
  out.clear();
  for (size_t i = 0; i < replicas.size(); ++i) {
    if (is_usable(replicas[i])) out.push_back(static_cast<int32_t>(i));
  }
}

// A uniformly random usable replica (seeded).
class RandomRouter final : public Router {
 public:
  explicit RandomRouter(uint64_t seed) : rng_(seed) {}
  int32_t route(const Request&, std::span<const ReplicaLoad> replicas) override {
    usable_indices(replicas, usable_);
    if (usable_.empty()) return -1;
    const int64_t n = static_cast<int64_t>(usable_.size());
    return usable_[static_cast<size_t>(rng_.uniform_int(0, n - 1))];
  }

 private:
  traces::Rng rng_;
  std::vector<int32_t> usable_;  // [num usable replicas] reused per call
};

// The usable replica with the fewest outstanding tokens (prompt still to compute plus output
// still to produce), lowest index on ties.
class LeastTokensRouter final : public Router {
 public:
  int32_t route(const Request&, std::span<const ReplicaLoad> replicas) override {
    int32_t best = -1;
    for (size_t i = 0; i < replicas.size(); ++i) {
      if (!is_usable(replicas[i])) continue;
      if (best < 0 || replicas[i].num_outstanding_tokens <
                          replicas[static_cast<size_t>(best)].num_outstanding_tokens) {
        best = static_cast<int32_t>(i);
      }
    }
    return best;
  }
};

// Two distinct usable replicas drawn at random (seeded); the one with fewer outstanding
// requests wins, the first drawn on ties.
class PowerOfTwoRouter final : public Router {
 public:
  explicit PowerOfTwoRouter(uint64_t seed) : rng_(seed) {}
  int32_t route(const Request&, std::span<const ReplicaLoad> replicas) override {
    usable_indices(replicas, usable_);
    const int64_t n = static_cast<int64_t>(usable_.size());
    if (n == 0) return -1;
    if (n == 1) return usable_[0];
    const int64_t a = rng_.uniform_int(0, n - 1);
    int64_t b = rng_.uniform_int(0, n - 2);
    if (b >= a) ++b;
    const int32_t first = usable_[static_cast<size_t>(a)];
    const int32_t second = usable_[static_cast<size_t>(b)];
    return replicas[static_cast<size_t>(second)].num_outstanding <
                   replicas[static_cast<size_t>(first)].num_outstanding
               ? second
               : first;
  }

 private:
  traces::Rng rng_;
  std::vector<int32_t> usable_;  // [num usable replicas] reused per call
};

}  // namespace

std::unique_ptr<Router> make_random_router(uint64_t seed) {
  return std::make_unique<RandomRouter>(seed);
}
std::unique_ptr<Router> make_least_tokens_router() {
  return std::make_unique<LeastTokensRouter>();
}
std::unique_ptr<Router> make_power_of_two_router(uint64_t seed) {
  return std::make_unique<PowerOfTwoRouter>(seed);
}

int32_t least_outstanding_replica(std::span<const ReplicaLoad> replicas) {
  int32_t best = -1;
  for (size_t i = 0; i < replicas.size(); ++i) {
    if (!is_usable(replicas[i])) continue;
    if (best < 0 ||
        replicas[i].num_outstanding < replicas[static_cast<size_t>(best)].num_outstanding) {
      best = static_cast<int32_t>(i);
    }
  }
  return best;
}

double mean_outstanding(std::span<const ReplicaLoad> replicas) {
  int64_t total = 0;
  int64_t count = 0;
  for (const ReplicaLoad& load : replicas) {
    if (!is_usable(load)) continue;
    total += load.num_outstanding;
    ++count;
  }
  return count > 0 ? static_cast<double>(total) / static_cast<double>(count) : 0.0;
}

bool is_overloaded(const ReplicaLoad& load, double mean, double load_factor) {
  return static_cast<double>(load.num_outstanding) > load_factor * mean + 1.0;
}

}  // namespace tidal::sim
