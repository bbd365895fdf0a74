// The two other folders a report renders besides run folders (docs/report.md defines both
// files): a validation folder (validation.json naming a predicted and a measured run folder)
// and a plan folder (plan.json written by `tidal plan`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/run_data.h"

namespace tidal::reports {

struct ValidationMetric {
  std::string metric;  // "TTFT p50"
  std::string unit;    // "s", "share" or free text ("tok/s")
  double predicted = 0.0;
  double measured = 0.0;
  double error = 0.0;  // (predicted - measured) / measured
  std::optional<double> tolerance;
  bool pass = false;
};

// One side of a validation: only what the engine's and the simulator's run folders share
// (requests.csv and summary.json's metrics block).
struct ValidationSide {
  std::string dir;
  RequestRows requests;
  LatencyFigures ttft;  // summary.json metrics.ttft
};

struct ValidationData {
  std::string dir;
  std::string title;
  ValidationSide predicted;  // the simulator
  ValidationSide measured;   // the engine
  std::vector<ValidationMetric> metrics;
};

bool is_validation_folder(const std::string& dir);
ValidationData load_validation(const std::string& dir);

struct PlanCandidate {
  std::string id;
  int64_t index = 0;
  nlohmann::ordered_json config;  // dimension -> value
  std::string status;             // feasible | slo_missed | invalid
  std::string reason;
  std::optional<double> cost;  // the plan's objective
  std::optional<double> p99_latency_s;
  std::optional<double> slo_attainment;
  std::optional<double> rate_scale;  // capacity mode
  std::optional<int64_t> num_gpus;
  bool on_frontier = false;
  // Written by tidal plan since candidates have names (empty / unset in older plan folders).
  std::string name;  // "4xH100-SXM tp2 fp8"
  std::string gpu, weight_dtype, kv_dtype;
  std::optional<int64_t> tp, num_replicas, rank;
  std::optional<double> dollars, dollars_per_hour, dollars_per_day, dollars_per_1m_tokens;
  std::optional<double> p99_ttft_s, p99_tpot_s;
};

struct PlanData {
  std::string dir;
  std::string scenario;
  std::string mode;            // cost | capacity
  std::string objective;       // the cost field ranked: dollars | dollars_per_1m_tokens
  std::string latency_metric;  // e.g. p99_ttft_s
  std::vector<std::string> slo;
  std::vector<std::string> dimensions;
  std::optional<std::string> cheapest;  // candidate id
  std::string ranking_rule;             // empty in older plan folders
  std::vector<std::string> ranking;     // candidate ids in rank order (older folders: none)
  std::vector<PlanCandidate> candidates;
};

bool is_plan_folder(const std::string& dir);
PlanData load_plan(const std::string& dir);

}  // namespace tidal::reports
