#include "sim/router_admission.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace tidal::sim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Admits every request.
class NoAdmission final : public RouterAdmission {
 public:
  std::optional<std::string> refuse(int64_t, int64_t) override { return std::nullopt; }
};

// One bucket per tenant, full at the tenant's first request, refilled continuously at its rate
// up to its burst; a request takes its cost out, or is rejected (taking nothing) when the
// bucket holds less.
class TokenBucketAdmission final : public RouterAdmission {
 public:
  TokenBucketAdmission(const AdmissionSpec& spec, const AdmissionView& view)
      : spec_(spec), view_(view) {}

  std::optional<std::string> refuse(int64_t i, int64_t now_ns) override {
    const Request& req = view_.request(i);
    auto it = buckets_.find(req.tenant);
    if (it == buckets_.end()) {
      const auto rate = spec_.tenants.find(req.tenant);
      const TokenBucketRate& r = rate != spec_.tenants.end() ? rate->second : spec_.rate;
      it = buckets_.emplace(req.tenant, Bucket{r, r.burst_tokens, now_ns}).first;
    }
    Bucket& b = it->second;
    const double refill = b.rate.tokens_per_s * static_cast<double>(now_ns - b.updated_ns) / 1e9;
    b.level = std::min(b.rate.burst_tokens, b.level + refill);
    b.updated_ns = now_ns;
    const double cost =
        spec_.unit == "requests" ? 1.0 : static_cast<double>(req.prompt_tokens + req.output_tokens);
    if (b.level >= cost) {
      b.level -= cost;
      return std::nullopt;
    }
    return fmt::format("admission token_bucket: tenant \"{}\" over {:g} {}/s", req.tenant,
                       b.rate.tokens_per_s, spec_.unit);
  }

 private:
  struct Bucket {
    TokenBucketRate rate;
    double level = 0.0;      // tokens (or requests) it holds as of updated_ns
    int64_t updated_ns = 0;  // its last refill
  };
  const AdmissionSpec& spec_;
  AdmissionView view_;
  std::map<std::string, Bucket> buckets_;  // by tenant, created at its first request
};

// Bounds the router queue: a request that would wait there (the queue is not empty) is
// rejected when the queue is full by count or by tokens.
class QueueLimitAdmission final : public RouterAdmission {
 public:
  QueueLimitAdmission(const AdmissionSpec& spec, const AdmissionView& view)
      : spec_(spec), view_(view) {}

  std::optional<std::string> refuse(int64_t i, int64_t) override {
    const RouterQueue& held = view_.held();
    if (held.empty()) return std::nullopt;
    if (spec_.max_queued && held.size() >= *spec_.max_queued) {
      return fmt::format("admission queue_limit: router queue holds {} requests",
                         *spec_.max_queued);
    }
    const Request& req = view_.request(i);
    if (spec_.max_queued_tokens &&
        view_.held_tokens() + req.prompt_tokens + req.output_tokens > *spec_.max_queued_tokens) {
      return fmt::format("admission queue_limit: router queue over {} tokens",
                         *spec_.max_queued_tokens);
    }
    return std::nullopt;
  }

 private:
  const AdmissionSpec& spec_;
  AdmissionView view_;
};

// Rejects a request whose predicted TTFT (predict_ttft_s) already exceeds its class's ttft_s
// bound; classes without one are never rejected.
class SloDeadlineAdmission final : public RouterAdmission {
 public:
  SloDeadlineAdmission(const Scenario& scenario, const AdmissionView& view)
      : scenario_(scenario), view_(view) {
    for (const SloClass& c : scenario.slo_classes) {
      if (c.slo.ttft_s) ttft_bound_s_.emplace(c.name, *c.slo.ttft_s);
    }
    for (const PoolSpec& pool : scenario.pools) {
      prefill_tokens_per_s_.push_back(prefill_tokens_per_s(pool));
    }
  }

  std::optional<std::string> refuse(int64_t i, int64_t) override {
    const std::string& slo_class = view_.request(i).slo_class;
    const auto bound = ttft_bound_s_.find(slo_class);
    if (bound == ttft_bound_s_.end()) return std::nullopt;
    const std::optional<double> ttft_s = predict_ttft_s(scenario_, view_, prefill_tokens_per_s_, i);
    if (!ttft_s || *ttft_s <= bound->second) return std::nullopt;
    return fmt::format("admission slo_deadline: predicted TTFT over class \"{}\" bound {:g} s",
                       slo_class, bound->second);
  }

 private:
  const Scenario& scenario_;
  AdmissionView view_;
  std::map<std::string, double, std::less<>> ttft_bound_s_;  // class -> its ttft_s bound
  std::vector<double> prefill_tokens_per_s_;                 // [num_pools]
};

struct AdmissionEntry {
  std::string_view name;
  std::unique_ptr<RouterAdmission> (*make)(const Scenario& scenario, const AdmissionView& view);
};

constexpr std::array<AdmissionEntry, 4> kAdmissions{{
    {"none",
     [](const Scenario&, const AdmissionView&) {
       return std::unique_ptr<RouterAdmission>(new NoAdmission());
     }},
    {"token_bucket",
     [](const Scenario& s, const AdmissionView& view) {
       return std::unique_ptr<RouterAdmission>(new TokenBucketAdmission(s.router.admission, view));
     }},
    {"queue_limit",
     [](const Scenario& s, const AdmissionView& view) {
       return std::unique_ptr<RouterAdmission>(new QueueLimitAdmission(s.router.admission, view));
     }},
    {"slo_deadline",
     [](const Scenario& s, const AdmissionView& view) {
       return std::unique_ptr<RouterAdmission>(new SloDeadlineAdmission(s, view));
     }},
}};

constexpr std::array<std::string_view, kAdmissions.size()> kAdmissionNames{
    kAdmissions[0].name, kAdmissions[1].name, kAdmissions[2].name, kAdmissions[3].name};

}  // namespace

std::span<const std::string_view> admission_names() {
  return kAdmissionNames;
}

std::unique_ptr<RouterAdmission> make_router_admission(const Scenario& scenario,
                                                       const AdmissionView& view) {
  for (const AdmissionEntry& entry : kAdmissions) {
    if (entry.name == scenario.router.admission.policy) return entry.make(scenario, view);
  }
  throw std::logic_error("make_router_admission: unknown policy '" +
                         scenario.router.admission.policy + "'");
}

double prefill_tokens_per_s(const PoolSpec& pool) {
  const int64_t budget = pool.scheduler.max_num_batched_tokens;
  const perf::SeqWork chunk{budget, 0, 1};
  const double seconds = pool.step_model->step_seconds(std::span(&chunk, 1));
  return seconds > 0.0 ? static_cast<double>(budget) / seconds : kInf;
}

std::optional<double> predict_ttft_s(const Scenario& scenario, const AdmissionView& view,
                                     std::span<const double> prefill_tokens_per_s, int64_t i) {
  const Cluster& cluster = view.cluster();
  const std::span<const ReplicaLoad> loads = cluster.loads();
  const auto prompt = static_cast<double>(view.request(i).prompt_tokens);
  double best_s = kInf;
  double fleet_tokens_per_s = 0.0;  // of every warm replica a request may enter by
  for (int32_t r = 0; r < cluster.num_replicas(); ++r) {
    const ReplicaLoad& load = loads[static_cast<size_t>(r)];
    const auto pool = static_cast<size_t>(load.pool);
    if (load.state != ReplicaState::warm || !cluster.entry_pools()[pool]) continue;
    const double rate = prefill_tokens_per_s[pool];
    fleet_tokens_per_s += rate;
    const double backlog = static_cast<double>(view.pending_prompt_tokens(r));
    best_s =
        std::min(best_s, scenario.pools[pool].frontend_per_request_s() + (backlog + prompt) / rate);
  }
  if (fleet_tokens_per_s == 0.0) return std::nullopt;
  return best_s + static_cast<double>(view.held_prompt_tokens_ahead(i)) / fleet_tokens_per_s;
}

int64_t AdmissionView::pending_prompt_tokens(int32_t replica) const {
  int64_t tokens = 0;
  for (const int64_t k : cluster_.replica(replica).in_flight) {
    const auto u = static_cast<size_t>(k);
    if (decoding_[u] == 0 && records_[u].first_token_ns < 0) {
      tokens += table_.requests[u].prompt_tokens;
    }
  }
  return tokens;
}

int64_t AdmissionView::held_prompt_tokens_ahead(int64_t i) const {
  int64_t tokens = 0;
  const int32_t rank = rank_[static_cast<size_t>(i)];
  for (int32_t g = 0; g < held_.num_groups(); ++g) {
    for (int32_t q = 0; q <= rank; ++q) {
      for (const int64_t k : held_.of_rank(q, g)) tokens += request(k).prompt_tokens;
    }
  }
  return tokens;
}

int64_t AdmissionView::held_tokens() const {
  int64_t tokens = 0;
  for (int32_t g = 0; g < held_.num_groups(); ++g) {
    for (int32_t q = 0; q < held_.num_ranks(); ++q) {
      for (const int64_t k : held_.of_rank(q, g)) {
        tokens += request(k).prompt_tokens + request(k).output_tokens;
      }
    }
  }
  return tokens;
}

}  // namespace tidal::sim
