// lora_affinity: a request for a LoRA adapter goes to the least loaded replica that has it
// loaded (unless that one is overloaded, as cache_aware judges it), else to one with room for
// another adapter, else to the least loaded: adapters are loaded once and stay put
// (docs/scenario.md, "Routers"). Base-model requests go to the least loaded replica.
#include "sim/lora_cache.h"
#include "sim/router_policies.h"

namespace tidal::sim {

namespace {

class LoraAffinityRouter final : public Router {
 public:
  explicit LoraAffinityRouter(const RouterSpec& spec) : load_factor_(spec.load_factor) {}
  int32_t route(const Request& request, std::span<const ReplicaLoad> replicas) override {
    if (request.adapter.empty()) return least_outstanding_replica(replicas);
    int32_t best = -1;
    for (size_t i = 0; i < replicas.size(); ++i) {
      const ReplicaLoad& load = replicas[i];
      if (!is_usable(load) || load.lora == nullptr || !load.lora->holds(request.adapter)) continue;
      if (best < 0 || load.num_outstanding < replicas[static_cast<size_t>(best)].num_outstanding) {
        best = static_cast<int32_t>(i);
      }
    }
    if (best >= 0 && !is_overloaded(replicas[static_cast<size_t>(best)], mean_outstanding(replicas),
                                    load_factor_)) {
      return best;
    }
    // Nowhere loaded (or its replicas overloaded): a replica with room for one more adapter, so
    // that loading it evicts nothing, else the least loaded.
    int32_t roomy = -1;
    for (size_t i = 0; i < replicas.size(); ++i) {
      const ReplicaLoad& load = replicas[i];
      if (!is_usable(load) || load.lora == nullptr || load.lora->full()) continue;
      if (roomy < 0 ||
          load.num_outstanding < replicas[static_cast<size_t>(roomy)].num_outstanding) {
        roomy = static_cast<int32_t>(i);
      }
    }
    return roomy >= 0 ? roomy : least_outstanding_replica(replicas);
  }

 private:
  double load_factor_;
};

}  // namespace

std::unique_ptr<Router> make_lora_affinity_router(const RouterSpec& spec) {
  return std::make_unique<LoraAffinityRouter>(spec);
}

}  // namespace tidal::sim
