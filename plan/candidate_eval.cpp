#include "plan/candidate_eval.h"

#include <cmath>

#include <fmt/format.h>

#include "plan/fnv_hash.h"
#include "sim/metrics.h"
#include "sim/simulator.h"
#include "traces/input_error.h"

namespace tidal::plan {
namespace {

using json = nlohmann::json;

struct Simulation {
  sim::RunMetrics metrics;
  std::optional<std::string> violation;  // empty: the SLO holds
};

Simulation simulate_at(const PlanContext& context, const Candidate& candidate, double rate_scale) {
  const sim::Scenario scenario =
      sim::parse_scenario(candidate_scenario_json(context, candidate, rate_scale),
                          context.scenario_file, context.scenario_dir);
  const std::shared_ptr<const sim::RequestTable> table = context.tables->get(rate_scale, scenario);
  sim::RunResult result = sim::simulate(scenario, *table);
  Simulation s;
  s.metrics = sim::compute_metrics(scenario, result);
  s.violation = slo_violation(context.slo, s.metrics);
  return s;
}

void record(CandidateResult& r, const sim::RunMetrics& m) {
  int64_t num_gpus = 0;
  double per_hour = 0.0;
  for (const sim::PoolMetrics& p : m.pools) {
    num_gpus += p.num_gpus;
    per_hour += p.num_gpus * p.price_per_gpu_hour;
  }
  r.num_gpus = num_gpus;
  r.dollars = m.dollars;
  r.dollars_per_hour = per_hour;
  r.dollars_per_1m_tokens = m.dollars_per_1m_tokens;
  r.dollars_per_1m_output_tokens = m.dollars_per_1m_output_tokens;
  auto p99 = [](const sim::LatencySummary& s) {
    return s.count > 0 ? std::optional(s.p99) : std::nullopt;
  };
  r.p99_ttft_s = p99(m.ttft);
  r.p99_tpot_s = p99(m.tpot);
  r.p99_e2e_s = p99(m.e2e);
  r.slo_attainment = m.slo_attainment;
  r.goodput_rps = m.goodput_rps;
}

void evaluate_cost(const PlanContext& context, const Candidate& candidate, CandidateResult& r) {
  const Simulation s = simulate_at(context, candidate, 1.0);
  r.num_simulations = 1;
  record(r, s.metrics);
  r.status = s.violation ? "slo_missed" : "feasible";
  r.reason = s.violation.value_or("");
}

void evaluate_capacity(const PlanContext& context, const Candidate& candidate, CandidateResult& r) {
  const CapacitySettings& c = context.space.capacity;
  double lo = c.min_rate_scale;
  Simulation at_lo = simulate_at(context, candidate, lo);
  r.num_simulations = 1;
  if (at_lo.violation) {
    record(r, at_lo.metrics);
    r.status = "slo_missed";
    r.reason = fmt::format("misses the SLO even at rate_scale {}: {}", lo, *at_lo.violation);
    return;
  }
  // Grow by doubling while the SLO holds, then bisect geometrically between lo and hi.
  double hi = 0.0;
  while (hi == 0.0) {
    const double next = std::min(lo * 2.0, c.max_rate_scale);
    Simulation s = simulate_at(context, candidate, next);
    ++r.num_simulations;
    if (s.violation) {
      hi = next;
    } else {
      lo = next;
      at_lo = std::move(s);
      if (lo >= c.max_rate_scale) break;
    }
  }
  while (hi > 0.0 && hi / lo > 1.0 + c.tolerance) {
    const double mid = std::sqrt(lo * hi);
    Simulation s = simulate_at(context, candidate, mid);
    ++r.num_simulations;
    if (s.violation) {
      hi = mid;
    } else {
      lo = mid;
      at_lo = std::move(s);
    }
  }
  record(r, at_lo.metrics);
  r.rate_scale = lo;
  r.status = "feasible";
  if (hi == 0.0) r.reason = fmt::format("meets the SLO up to max_rate_scale {}", lo);
}

}  // namespace

std::shared_ptr<const sim::RequestTable> TableCache::get(double rate_scale,
                                                         const sim::Scenario& scenario) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = tables_.find(rate_scale);
    if (it != tables_.end()) return it->second;
  }
  // Loaded outside the lock; two threads may load the same scale once each, the first wins.
  auto table = std::make_shared<const sim::RequestTable>(sim::load_workloads(scenario));
  std::lock_guard<std::mutex> lock(mutex_);
  return tables_.emplace(rate_scale, std::move(table)).first->second;
}

json candidate_scenario_json(const PlanContext& context, const Candidate& candidate,
                             double rate_scale) {
  json root = context.scenario_json;
  for (const auto& [key, value] : candidate.config.items()) {
    set_pool_key(root, context.space.pool_index, key, json(value));
  }
  if (rate_scale != 1.0) {
    for (json& w : root.at("workloads")) {
      w["rate_scale"] = w.value("rate_scale", 1.0) * rate_scale;
    }
  }
  return root;
}

std::string candidate_id(const std::string& fingerprint, const nlohmann::ordered_json& config) {
  return fnv1a_hex(fingerprint + "\n" + config.dump());
}

CandidateResult evaluate_candidate(const PlanContext& context, const Candidate& candidate) {
  CandidateResult r;
  r.id = candidate_id(context.fingerprint, candidate.config);
  r.index = candidate.index;
  r.config = candidate.config;
  try {
    if (context.mode == PlanMode::cost) {
      evaluate_cost(context, candidate, r);
    } else {
      evaluate_capacity(context, candidate, r);
    }
  } catch (const InputError& e) {
    CandidateResult invalid;
    invalid.id = r.id;
    invalid.index = r.index;
    invalid.config = r.config;
    invalid.status = "invalid";
    invalid.reason = e.what();
    invalid.num_simulations = r.num_simulations;
    return invalid;
  }
  return r;
}

std::string_view plan_mode_name(PlanMode mode) {
  return mode == PlanMode::cost ? "cost" : "capacity";
}

}  // namespace tidal::plan
