#include "plan/candidate_eval.h"

#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/dtype.h"
#include "plan/fnv_hash.h"
#include "sim/metrics.h"
#include "sim/simulator.h"

namespace tidal::plan {
namespace {

using json = nlohmann::json;

struct Simulation {
  sim::RunMetrics metrics;
  PoolSetup setup;
  std::optional<RoleSetups> roles;
  std::optional<std::string> violation;  // empty: the SLO holds
};

// "fp8"; a dimension value as it reads in a name.
std::string value_text(const nlohmann::ordered_json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

Simulation simulate_at(const PlanContext& context, const Candidate& candidate, double rate_scale) {
  const sim::Scenario scenario =
      sim::parse_scenario(candidate_scenario_json(context, candidate, rate_scale),
                          context.scenario_file, context.scenario_dir);
  const std::shared_ptr<const sim::RequestTable> table = context.tables->get(rate_scale, scenario);
  // A candidate's figures read no ITL unless its SLO bounds one: its samples (one per output
  // token) are not collected.
  sim::RunResult result =
      sim::simulate(scenario, *table, sim::RunOptions{.itl_samples = bounds_itl(context.slo)});
  Simulation s;
  s.metrics = sim::compute_metrics(scenario, result);
  s.setup = pool_setup(scenario.pools.at(context.space.pool_index));
  if (context.space.prefill_pool && context.space.decode_pool) {
    s.roles = RoleSetups{pool_setup(scenario.pools.at(*context.space.prefill_pool)),
                         pool_setup(scenario.pools.at(*context.space.decode_pool))};
  }
  s.violation = slo_violation(context.slo, s.metrics);
  return s;
}

void record(CandidateResult& r, const Simulation& s) {
  const sim::RunMetrics& m = s.metrics;
  r.setup = s.setup;
  r.roles = s.roles;
  int64_t num_gpus = 0;
  double per_hour = 0.0;
  for (const sim::PoolMetrics& p : m.pools) {
    num_gpus += p.num_gpus;
    per_hour += p.num_gpus * p.price_per_gpu_hour;
  }
  r.num_gpus = num_gpus;
  r.dollars = m.dollars;
  r.dollars_per_hour = per_hour;
  r.dollars_per_day =
      m.duration_s > 0 ? std::optional(m.dollars / m.duration_s * 86400.0) : std::nullopt;
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
  record(r, s);
  r.status = s.violation ? "slo_missed" : "feasible";
  r.reason = s.violation.value_or("");
}

void evaluate_capacity(const PlanContext& context, const Candidate& candidate, CandidateResult& r) {
  const CapacitySettings& c = context.space.capacity;
  double lo = c.min_rate_scale;
  Simulation at_lo = simulate_at(context, candidate, lo);
  r.num_simulations = 1;
  if (at_lo.violation) {
    record(r, at_lo);
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
  record(r, at_lo);
  r.rate_scale = lo;
  r.status = "feasible";
  if (hi == 0.0) r.reason = fmt::format("meets the SLO up to max_rate_scale {}", lo);
}

// `v` as an int32 when it is an integer in range; else nothing (the loader judges it).
std::optional<int32_t> int32_value(const nlohmann::ordered_json& v) {
  if (!v.is_number_integer()) return std::nullopt;
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) return std::nullopt;
    return static_cast<int32_t>(u);
  }
  const auto i = v.get<int64_t>();
  if (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(i);
}

}  // namespace

PoolSetup pool_setup(const sim::PoolSpec& pool) {
  PoolSetup setup;
  setup.gpu = pool.gpu;
  setup.tp = pool.deployment.tp;
  setup.pp = pool.deployment.pp;
  setup.num_replicas = pool.num_replicas;
  setup.weight_dtype = std::string(perf::dtype_name(pool.deployment.weight_dtype));
  setup.kv_dtype = std::string(perf::dtype_name(pool.deployment.kv_dtype));
  return setup;
}

PoolSetup setup_with_overrides(PoolSetup base, const nlohmann::ordered_json& config) {
  for (const auto& [key, v] : config.items()) {
    if (key == "gpu" && v.is_string()) base.gpu = v.get<std::string>();
    if (key == "gpu" && v.is_object() && v.contains("name") && v["name"].is_string())
      base.gpu = v["name"].get<std::string>();
    if (auto n = int32_value(v); key == "tp" && n) base.tp = *n;
    if (auto n = int32_value(v); key == "pp" && n) base.pp = *n;
    if (auto n = int32_value(v); key == "num_replicas" && n) base.num_replicas = *n;
    if (key == "weight_dtype" && v.is_string()) base.weight_dtype = v.get<std::string>();
    if (key == "kv_dtype" && v.is_string()) base.kv_dtype = v.get<std::string>();
  }
  return base;
}

std::string candidate_name(const PoolSetup& setup, const nlohmann::ordered_json& config,
                           const std::optional<RoleSetups>& roles) {
  std::string name =
      roles
          ? fmt::format("{}x{} {}P-tp{} {}D-tp{} {}", roles->num_gpus(), setup.gpu,
                        roles->prefill.num_replicas, roles->prefill.tp, roles->decode.num_replicas,
                        roles->decode.tp, setup.weight_dtype)
          : fmt::format("{}x{} tp{} {}", setup.num_gpus(), setup.gpu, setup.tp, setup.weight_dtype);
  if (config.contains("kv_dtype")) name += " kv-" + setup.kv_dtype;
  for (const auto& [key, v] : config.items()) {
    if (key == "gpu" || key == "tp" || key == "num_replicas" || key == "weight_dtype" ||
        key == "kv_dtype" || find_role_axis(key) != nullptr) {
      continue;
    }
    name += ' ';
    if (!v.is_string()) name += key.substr(key.rfind('.') + 1) + "=";
    name += value_text(v);
  }
  return name;
}

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
  apply_candidate(root, context.space, candidate.config);
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
    const SearchSpace& space = context.space;
    invalid.setup =
        setup_with_overrides(context.base_setup, pool_overrides(space, space.pool_index, r.config));
    if (context.base_roles) {
      invalid.roles =
          RoleSetups{setup_with_overrides(context.base_roles->prefill,
                                          pool_overrides(space, *space.prefill_pool, r.config)),
                     setup_with_overrides(context.base_roles->decode,
                                          pool_overrides(space, *space.decode_pool, r.config))};
    }
    invalid.name = candidate_name(invalid.setup, invalid.config, invalid.roles);
    invalid.status = "invalid";
    invalid.reason = e.what();
    invalid.num_simulations = r.num_simulations;
    return invalid;
  }
  r.name = candidate_name(r.setup, r.config, r.roles);
  return r;
}

std::string_view plan_mode_name(PlanMode mode) {
  return mode == PlanMode::cost ? "cost" : "capacity";
}

}  // namespace tidal::plan
