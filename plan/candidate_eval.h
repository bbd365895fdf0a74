// Evaluating one candidate: its overrides applied to the scenario's pool, the scenario
// re-validated (an invalid combination — a model that does not fit, a TP degree that does not
// divide the heads — is recorded as `invalid` with the loader's message), then simulated.
//   mode cost:     the given trace once; feasible when every SLO target holds.
//   mode capacity: the largest request-rate scale meeting the SLO, by doubling from
//                  min_rate_scale and then geometric bisection to the tolerance.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/search_space.h"
#include "plan/slo_target.h"
#include "sim/workload_loader.h"

namespace tidal::plan {

enum class PlanMode { cost, capacity };

// The varied pool's serving setup: from the candidate's loaded scenario, or for an invalid
// candidate (which does not load) the scenario's pool with the candidate's own values of these
// keys.
struct PoolSetup {
  std::string gpu;  // catalog name (an inline GPU object's name)
  int32_t tp = 1;
  int32_t pp = 1;            // pipeline stages (each tp GPUs)
  int32_t num_replicas = 1;  // as configured (an autoscaler's starting count)
  std::string weight_dtype = "bf16";
  std::string kv_dtype = "bf16";

  int64_t num_gpus() const { return static_cast<int64_t>(tp) * pp * num_replicas; }
};

// A disaggregated layout's two roles (SearchSpace::prefill_pool, decode_pool).
struct RoleSetups {
  PoolSetup prefill, decode;
  int64_t num_gpus() const { return prefill.num_gpus() + decode.num_gpus(); }
};

// The pool setup of `pool` as loaded.
PoolSetup pool_setup(const sim::PoolSpec& pool);
// `base` with the candidate's values of gpu, tp, pp, num_replicas, weight_dtype and kv_dtype (those
// of a usable type; the loader judges the rest).
PoolSetup setup_with_overrides(PoolSetup base, const nlohmann::ordered_json& config);

// A candidate's name from its settings: "<GPUs>x<GPU> tp<TP> <weight dtype>", then "kv-<dtype>"
// when kv_dtype is a dimension, then every other dimension's value in dimension order (a string
// as it is, "continuous", "spot"; anything else as "<last key part>=<value>",
// "max_num_seqs=64"): "4xH100-SXM tp2 fp8 continuous max_num_seqs=64". With `roles` (a
// disaggregated layout) the start is "<GPUs of both roles>x<GPU> <n>P-tp<TP> <n>D-tp<TP>
// <weight dtype>" and the role axes are not repeated: "20xH100-SXM 2P-tp4 3D-tp4 fp8".
std::string candidate_name(const PoolSetup& setup, const nlohmann::ordered_json& config,
                           const std::optional<RoleSetups>& roles = std::nullopt);

struct CandidateResult {
  std::string id;
  int64_t index = 0;
  nlohmann::ordered_json config;
  std::string name;  // candidate_name(); conclude() makes names unique (" #<index>")
  PoolSetup setup;
  std::optional<RoleSetups> roles;  // a disaggregated layout's prefill and decode pools
  std::string status;               // feasible | slo_missed | invalid
  std::string reason;               // why not feasible (empty when feasible)
  // Figures of the deciding simulation (cost mode: the trace; capacity mode: the run at the
  // capacity found, or at min_rate_scale when even that misses). Empty for invalid ones.
  std::optional<int64_t> num_gpus;
  std::optional<double> dollars;
  std::optional<double> dollars_per_hour;  // GPUs x price, whole fleet
  // dollars / duration x 86,400: a day of the trace's rate (an extrapolation for short traces)
  std::optional<double> dollars_per_day;
  std::optional<double> dollars_per_1m_tokens;
  std::optional<double> dollars_per_1m_output_tokens;
  std::optional<double> p99_ttft_s, p99_tpot_s, p99_e2e_s;
  std::optional<double> slo_attainment;
  std::optional<double> goodput_rps;
  std::optional<double> rate_scale;  // capacity mode: the largest scale meeting the SLO
  int64_t num_simulations = 0;
};

// Request tables by rate scale, shared by the threads of one plan (loading a trace once per
// scale instead of once per candidate).
class TableCache {
 public:
  std::shared_ptr<const sim::RequestTable> get(double rate_scale, const sim::Scenario& scenario);

 private:
  std::mutex mutex_;
  std::map<double, std::shared_ptr<const sim::RequestTable>> tables_;
};

struct PlanContext {
  nlohmann::json scenario_json;  // the scenario file as written
  std::string scenario_file;
  std::string scenario_dir;  // relative paths resolve here
  SearchSpace space;
  std::vector<SloTarget> slo;
  PlanMode mode = PlanMode::cost;
  std::string fingerprint;  // of every input that decides results (results_file.h)
  std::shared_ptr<TableCache> tables = std::make_shared<TableCache>();
  PoolSetup base_setup;                  // the varied pool as the scenario gives it
  std::optional<RoleSetups> base_roles;  // the prefill and decode pools as given (disaggregated)
};

// The scenario JSON of a candidate at a request-rate scale (1 = as given).
nlohmann::json candidate_scenario_json(const PlanContext& context, const Candidate& candidate,
                                       double rate_scale);

// Stable id of a candidate within a plan: 16 hex digits of FNV-1a over the fingerprint and
// the candidate's config.
std::string candidate_id(const std::string& fingerprint, const nlohmann::ordered_json& config);

CandidateResult evaluate_candidate(const PlanContext& context, const Candidate& candidate);

std::string_view plan_mode_name(PlanMode mode);

}  // namespace tidal::plan
