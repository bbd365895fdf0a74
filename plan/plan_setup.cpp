#include "plan/plan_setup.h"

#include <filesystem>

#include <fmt/format.h>

#include "base/input_error.h"
#include "plan/fnv_hash.h"
#include "sim/scenario.h"

namespace tidal::plan {
namespace {

std::string fingerprint_of(const PlanContext& c) {
  nlohmann::ordered_json dims = nlohmann::ordered_json::array();
  for (const Dimension& d : c.space.dimensions) {
    dims.push_back(nlohmann::ordered_json{{"key", d.key}, {"values", d.values}});
  }
  std::vector<std::string> slo;
  for (const SloTarget& t : c.slo) slo.push_back(t.text);
  const nlohmann::ordered_json inputs{
      {"scenario", c.scenario_json},
      {"pool", c.space.pool_index},
      {"dimensions", dims},
      {"capacity",
       {c.space.capacity.min_rate_scale, c.space.capacity.max_rate_scale,
        c.space.capacity.tolerance}},
      {"slo", slo},
      {"mode", std::string(plan_mode_name(c.mode))}};
  return fnv1a_hex(inputs.dump());
}

}  // namespace

PlanInputs load_plan_inputs(const PlanOptions& options) {
  PlanInputs in;
  PlanContext& c = in.context;
  c.scenario_file = options.scenario_path;
  c.scenario_dir = std::filesystem::path(options.scenario_path).parent_path().string();
  c.scenario_json = sim::parse_scenario_json_text(
      sim::read_scenario_file_text(options.scenario_path), options.scenario_path);
  in.base = sim::parse_scenario(c.scenario_json, c.scenario_file, c.scenario_dir);
  c.space = load_search_space(options.space_path,
                              BaseScenario{c.scenario_json, c.scenario_file, c.scenario_dir});

  if (options.mode == "cost") {
    c.mode = PlanMode::cost;
  } else if (options.mode == "capacity") {
    c.mode = PlanMode::capacity;
  } else {
    throw InputError(
        fmt::format("--mode: unknown mode \"{}\" (known: cost, capacity)", options.mode));
  }
  if (options.latency != "ttft" && options.latency != "tpot" && options.latency != "e2e") {
    throw InputError(
        fmt::format("--latency: unknown \"{}\" (known: ttft, tpot, e2e)", options.latency));
  }
  if (options.slo.empty()) {
    throw InputError("--slo: at least one target is required (e.g. --slo p99_ttft<=1s)");
  }
  for (const std::string& text : options.slo) {
    SloTarget t = parse_slo_target(text);
    if (t.slo_class) {
      bool known = false;
      std::string names;
      for (const sim::SloClass& k : in.base.slo_classes) {
        known = known || k.name == *t.slo_class;
        names += (names.empty() ? "" : ", ") + k.name;
      }
      if (!known) {
        throw InputError(fmt::format("--slo \"{}\": no SLO class \"{}\" in {} (classes: {})", text,
                                     *t.slo_class, options.scenario_path, names));
      }
    }
    c.slo.push_back(std::move(t));
  }
  c.base_setup = pool_setup(in.base.pools.at(c.space.pool_index));
  if (c.space.prefill_pool && c.space.decode_pool) {
    c.base_roles = RoleSetups{pool_setup(in.base.pools.at(*c.space.prefill_pool)),
                              pool_setup(in.base.pools.at(*c.space.decode_pool))};
  }
  c.fingerprint = fingerprint_of(c);
  in.candidates = enumerate_candidates(c.space);
  for (const Candidate& cand : in.candidates) {
    in.ids.push_back(candidate_id(c.fingerprint, cand.config));
  }
  return in;
}

}  // namespace tidal::plan
