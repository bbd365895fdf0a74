// Admission control at the router (docs/scenario.md, "Admission control"): once per request, as
// it reaches the router and before it is dispatched or held, a policy decides whether the fleet
// takes it. Small classes behind one interface, chosen by name (AdmissionSpec::policy); a
// rejected request ends through the simulator's reject path with the policy's reason.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster.h"
#include "sim/request_record.h"
#include "sim/router_queue.h"
#include "sim/scenario.h"
#include "sim/workload_loader.h"

namespace tidal::sim {

// What the router knows when a request reaches it: the requests, what it routed to each
// replica and which of those it saw a first token of, the replicas' loads, and its own queue.
// It holds references into the simulator, read at each decision.
class AdmissionView {
 public:
  AdmissionView(const Cluster& cluster, const RouterQueue& held, const RequestTable& table,
                const std::vector<RequestRecord>& records, const std::vector<int32_t>& rank,
                const std::vector<char>& decoding)
      : cluster_(cluster),
        held_(held),
        table_(table),
        records_(records),
        rank_(rank),
        decoding_(decoding) {}

  const Cluster& cluster() const { return cluster_; }
  const RouterQueue& held() const { return held_; }
  const Request& request(int64_t i) const { return table_.requests[static_cast<size_t>(i)]; }
  // Prompt tokens of the requests routed to `replica` (not yet handed to a decode replica)
  // whose first token has not come back: its prefill backlog as the router counts it.
  int64_t pending_prompt_tokens(int32_t replica) const;
  // Prompt tokens of the held requests that leave before request `i` would (class rank first,
  // then arrival order: sim/router_queue.h), over every model's queue.
  int64_t held_prompt_tokens_ahead(int64_t i) const;
  // Prompt + output tokens of every held request.
  int64_t held_tokens() const;

 private:
  const Cluster& cluster_;
  const RouterQueue& held_;
  const RequestTable& table_;
  const std::vector<RequestRecord>& records_;  // [num_requests]
  const std::vector<int32_t>& rank_;           // [num_requests] router-queue class rank
  const std::vector<char>& decoding_;          // [num_requests] on a decode replica (or going)
};

class RouterAdmission {
 public:
  virtual ~RouterAdmission() = default;
  // Empty to admit request `i` (an index into the request table) reaching the router at
  // `now_ns`; else the reason it is rejected ("admission <policy>: ...").
  virtual std::optional<std::string> refuse(int64_t i, int64_t now_ns) = 0;
};

// `scenario.router.admission.policy` must be one of admission_names() (the loader checks);
// std::logic_error else. The policy reads the simulator's state through `view`.
std::unique_ptr<RouterAdmission> make_router_admission(const Scenario& scenario,
                                                       const AdmissionView& view);

// slo_deadline's estimate (docs/scenario.md, "Admission control"): the TTFT request `i` would
// see on the warm replica with the shortest prefill backlog, behind the router queue; empty
// when no replica is warm (cold starts are not predicted). `prefill_tokens_per_s` is
// [num_pools], from prefill_tokens_per_s().
std::optional<double> predict_ttft_s(const Scenario& scenario, const AdmissionView& view,
                                     std::span<const double> prefill_tokens_per_s, int64_t i);
// Prompt tokens per second of one full-budget prefill step (max_num_batched_tokens new tokens
// at context 0) by the pool's step-time model, CPU overhead included.
double prefill_tokens_per_s(const PoolSpec& pool);

}  // namespace tidal::sim
