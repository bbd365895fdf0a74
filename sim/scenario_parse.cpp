#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "base/checked_time.h"
#include "base/input_error.h"
#include "base/limits.h"
#include "sim/fleet/spec_reading.h"
#include "sim/json_object.h"
#include "sim/router.h"
#include "sim/scenario.h"
#include "sim/scenario_disagg.h"
#include "sim/scenario_fleet.h"
#include "sim/scenario_fleet_keys.h"
#include "sim/scenario_limits.h"
#include "sim/scenario_model_router.h"
#include "sim/spec_class_acceptance.h"
#include "traces/random.h"

namespace tidal::sim {
namespace {

SloBounds parse_slo(JsonObject& workload) {
  SloBounds slo;
  const nlohmann::json* value = workload.child("slo");
  if (value == nullptr) return slo;
  JsonObject obj(*value, workload.path_of("slo"), workload.file());
  if (auto v = obj.optional_number("ttft_s")) slo.ttft_s = obj.positive("ttft_s", *v);
  if (auto v = obj.optional_number("tpot_s")) slo.tpot_s = obj.positive("tpot_s", *v);
  if (auto v = obj.optional_number("e2e_s")) slo.e2e_s = obj.positive("e2e_s", *v);
  obj.finish({"ttft_s", "tpot_s", "e2e_s"});
  return slo;
}

TraceSource parse_trace(const nlohmann::json& value, const std::string& path,
                        const std::string& file, const std::string& base_dir) {
  JsonObject obj(value, path, file);
  TraceSource trace;
  trace.path = obj.required_string("path");
  if (trace.path.empty()) obj.fail("path", "must not be empty");
  trace.resolved_path = resolve_path(trace.path, base_dir);
  if (const std::optional<std::string> name = obj.optional_string("format")) {
    try {
      trace.format = traces::parse_format_name(*name);
    } catch (const InputError& e) {
      obj.fail("format", e.what());
    }
  }
  obj.finish({"path", "format"});
  return trace;
}

WorkloadSpec parse_workload(const nlohmann::json& value, size_t index, const std::string& file,
                            const std::string& base_dir) {
  JsonObject obj(value, fmt::format("workloads[{}]", index), file);
  WorkloadSpec w;
  w.name = obj.string("name", fmt::format("workload{}", index));
  if (w.name.empty()) obj.fail("name", "must not be empty (it names the workload in every output)");
  const nlohmann::json* trace = obj.child("trace");
  const nlohmann::json* generator = obj.child("generator");
  if ((trace == nullptr) == (generator == nullptr)) {
    throw_at(file, obj.path(), "needs exactly one of \"trace\" or \"generator\"");
  }
  if (trace != nullptr) w.trace = parse_trace(*trace, obj.path_of("trace"), file, base_dir);
  if (generator != nullptr) {
    if (!generator->is_object()) obj.fail("generator", "expected a generator spec object");
    w.generator = *generator;
  }
  w.tenant = obj.optional_string("tenant");
  w.slo_class = obj.string("slo_class", "default");
  if (w.slo_class.empty()) obj.fail("slo_class", "must not be empty");
  w.slo = parse_slo(obj);
  w.time_scale = obj.positive("time_scale", obj.number("time_scale", 1.0));
  w.rate_scale = obj.positive("rate_scale", obj.number("rate_scale", 1.0));
  w.length_scale = obj.positive("length_scale", obj.number("length_scale", 1.0));
  w.start_s = obj.non_negative("start_s", obj.number("start_s", 0.0));
  if (w.start_s > base::kMaxArrivalS) {
    obj.fail("start_s", fmt::format("must be at most {:g} s (the latest arrival), got {:g}",
                                    base::kMaxArrivalS, w.start_s));
  }
  read_workload_fleet_keys(obj, w);
  obj.finish({"name", "trace", "generator", "tenant", "slo_class", "slo", "time_scale",
              "rate_scale", "length_scale", "start_s", "region", "region_mix", "max_output_tokens",
              "model", "complexity", "private_share", "adapters"});
  return w;
}

// One SloClass per distinct slo_class, sorted by name; two workloads giving different bounds
// for one class is an error.
std::vector<SloClass> gather_slo_classes(const std::vector<WorkloadSpec>& workloads,
                                         const nlohmann::json& root, const std::string& file) {
  std::vector<SloClass> classes;
  std::vector<int> given_by;  // [classes.size()] workload that gave the bounds, -1 if none
  for (size_t i = 0; i < workloads.size(); ++i) {
    const WorkloadSpec& w = workloads[i];
    const bool gives = root.at("workloads").at(i).contains("slo");
    auto it = std::find_if(classes.begin(), classes.end(),
                           [&](const SloClass& c) { return c.name == w.slo_class; });
    if (it == classes.end()) {
      classes.push_back(SloClass{w.slo_class, w.slo});
      given_by.push_back(gives ? static_cast<int>(i) : -1);
      continue;
    }
    const size_t k = static_cast<size_t>(it - classes.begin());
    if (!gives) continue;
    if (given_by[k] < 0) {
      it->slo = w.slo;
      given_by[k] = static_cast<int>(i);
    } else if (!(it->slo == w.slo)) {
      throw_at(file, fmt::format("workloads[{}].slo", i),
               fmt::format("differs from the slo of slo_class \"{}\" given in workloads[{}]",
                           w.slo_class, given_by[k]));
    }
  }
  std::sort(classes.begin(), classes.end(),
            [](const SloClass& a, const SloClass& b) { return a.name < b.name; });
  return classes;
}

// Top-level `priorities`: slo_class -> Request::priority. Every key must name a class some
// workload uses (a misspelt class would silently keep priority 0).
std::map<std::string, int32_t> parse_priorities(JsonObject& root,
                                                const std::vector<SloClass>& classes) {
  std::map<std::string, int32_t> priorities;
  const nlohmann::json* value = root.child("priorities");
  if (value == nullptr) return priorities;
  JsonObject obj(*value, "priorities", root.file());
  for (const auto& [name, priority] : value->items()) {
    const int64_t p = obj.integer(name, 0);
    if (p < INT32_MIN || p > INT32_MAX) {
      obj.fail(name, fmt::format("must be between {} and {}, got {}", INT32_MIN, INT32_MAX, p));
    }
    if (std::none_of(classes.begin(), classes.end(),
                     [&](const SloClass& c) { return c.name == name; })) {
      std::string known;
      for (const SloClass& c : classes) known += (known.empty() ? "" : ", ") + c.name;
      obj.fail(name, fmt::format("no workload has slo_class \"{}\" (classes: {})", name, known));
    }
    priorities[name] = static_cast<int32_t>(p);
  }
  return priorities;
}

OutputSpec parse_output(JsonObject& root) {
  OutputSpec out;
  const nlohmann::json* value = root.child("output");
  if (value == nullptr) return out;
  JsonObject obj(*value, "output", root.file());
  out.requests_csv = obj.boolean("requests_csv", out.requests_csv);
  out.timeline_csv = obj.boolean("timeline_csv", out.timeline_csv);
  out.trace_json = obj.boolean("trace_json", out.trace_json);
  out.trace_max_slices =
      obj.at_least("trace_max_slices", obj.integer("trace_max_slices", out.trace_max_slices), 0);
  obj.finish({"requests_csv", "timeline_csv", "trace_json", "trace_max_slices"});
  return out;
}

RouterSpec parse_router(JsonObject& root) {
  RouterSpec router;
  const nlohmann::json* value = root.child("router");
  if (value == nullptr) return router;
  JsonObject obj(*value, "router", root.file());
  router.policy = obj.string("policy", router.policy);
  read_router_knobs(obj, router);
  const auto names = router_names();
  if (std::find(names.begin(), names.end(), router.policy) == names.end()) {
    std::string known;
    for (std::string_view n : names) known += (known.empty() ? "" : ", ") + std::string(n);
    obj.fail("policy", fmt::format("unknown router \"{}\" (known: {})", router.policy, known));
  }
  for (std::string_view key :
       {"load_factor", "prefix_blocks", "virtual_nodes", "tier_hit_weight"}) {
    if (obj.has(key) && !router_reads_knob(router.policy, key)) {
      obj.fail(key, fmt::format("not a knob of router \"{}\"", router.policy));
    }
  }
  obj.finish({"policy", "load_factor", "prefix_blocks", "virtual_nodes", "tier_hit_weight",
              "prefer_nearest_region", "class_priority", "admission"});
  return router;
}

}  // namespace

void check_run_limits(const Scenario& s, int64_t last_arrival_ns) {
  const double span_s = static_cast<double>(last_arrival_ns) * 1e-9;
  const auto check = [&](double interval_s, const std::string& key) {
    const double num_intervals = span_s / interval_s;
    if (num_intervals <= static_cast<double>(kMaxIntervalsPerRun)) return;
    throw_at(s.file, key,
             fmt::format("{:g} s makes {:.0f} intervals up to the last arrival at {:g} s, above "
                         "the limit of {} per run; give at least {:g} s",
                         interval_s, num_intervals, span_s, kMaxIntervalsPerRun,
                         span_s / static_cast<double>(kMaxIntervalsPerRun)));
  };
  check(s.timeline_interval_s, "timeline_interval_s");
  check(s.metrics.peak_bin_s, "metrics.peak_bin_s");
  for (size_t p = 0; p < s.pools.size(); ++p) {
    const PoolSpec& pool = s.pools[p];
    if (pool.autoscaler.policy == "fixed" && !pool.is_spot()) continue;  // never evaluated
    check(pool.autoscaler.evaluation_interval_s,
          fmt::format("fleet.pools[{}].autoscaler.evaluation_interval_s", p));
  }
}

int64_t running_time_limit_ns(const Scenario& s, int64_t timeline_interval_ns) {
  const int64_t shortest_interval_ns =
      std::min(timeline_interval_ns,
               base::checked_seconds_to_ns(s.metrics.peak_bin_s, "metrics.peak_bin_s"));
  if (shortest_interval_ns > base::kMaxSimulatedNs / kMaxIntervalsRunning) {
    return base::kMaxSimulatedNs;
  }
  return std::min<int64_t>(base::kMaxSimulatedNs, kMaxIntervalsRunning * shortest_interval_ns);
}

void check_run_time(const Scenario& s, int64_t now_ns) {
  const double now_s = static_cast<double>(now_ns) * 1e-9;
  if (now_ns > base::kMaxSimulatedNs) {
    throw InputError(
        fmt::format("{}: the run reached t = {:g} s, past the simulated-time limit "
                    "of {:g} s",
                    s.file, now_s, base::kMaxSimulatedS));
  }
  const double interval_s = std::min(s.timeline_interval_s, s.metrics.peak_bin_s);
  const double interval_ns = static_cast<double>(std::llround(interval_s * 1e9));
  if (static_cast<double>(now_ns) / interval_ns > static_cast<double>(kMaxIntervalsRunning)) {
    throw InputError(fmt::format(
        "{}: the run reached t = {:g} s with requests unfinished, past the limit of {} "
        "intervals of {:g} s (timeline_interval_s, metrics.peak_bin_s); does the fleet ever "
        "serve them?",
        s.file, now_s, kMaxIntervalsRunning, interval_s));
  }
}

uint64_t workload_seed(uint64_t scenario_seed, size_t workload_index) {
  return traces::derive_seed(scenario_seed, workload_index);
}

int32_t Scenario::num_replicas() const {
  int32_t n = 0;
  for (const PoolSpec& p : pools) n += p.num_replicas;
  return n;
}

bool Scenario::prices_egress() const {
  if (network && network->prices_egress()) return true;
  return std::any_of(kv_links.begin(), kv_links.end(),
                     [](const fleet::KvLinkSpec& link) { return link.egress_per_gb > 0.0; });
}

void Scenario::set_seed(uint64_t new_seed) {
  // The echo in summary.json must load again, and JSON integers stop at INT64_MAX.
  if (new_seed > static_cast<uint64_t>(INT64_MAX)) {
    throw InputError(fmt::format("seed: must be between 0 and {}, got {}", INT64_MAX, new_seed));
  }
  seed = new_seed;
  for (size_t i = 0; i < workloads.size(); ++i) workloads[i].seed = workload_seed(seed, i);
}

Scenario parse_scenario(const nlohmann::json& root, const std::string& file,
                        const std::string& base_dir) {
  JsonObject obj(root, "", file);
  Scenario s;
  s.file = file;
  s.base_dir = base_dir;
  s.name = obj.string("name", std::filesystem::path(file).stem().string());
  if (s.name.empty()) obj.fail("name", "must not be empty");
  if (s.name.find_first_of("/\\") != std::string::npos || s.name == "." || s.name == "..") {
    obj.fail("name", "must not hold '/', '\\' or be '.' or '..' (it names the run folder)");
  }
  s.seed = static_cast<uint64_t>(obj.at_least("seed", obj.integer("seed", 0), 0));
  if (auto d = obj.optional_number("duration_s")) s.duration_s = obj.positive("duration_s", *d);
  s.timeline_interval_s =
      obj.positive("timeline_interval_s", obj.number("timeline_interval_s", 1.0));
  if (s.timeline_interval_s < fleet::kMinIntervalS ||
      s.timeline_interval_s > fleet::kMaxDurationS) {
    obj.fail("timeline_interval_s",
             fmt::format("must be between {:g} and {:g} s, got {:g}", fleet::kMinIntervalS,
                         fleet::kMaxDurationS, s.timeline_interval_s));
  }

  const nlohmann::json* workloads = obj.child("workloads");
  if (workloads == nullptr) obj.fail("workloads", "missing (required)");
  if (!workloads->is_array() || workloads->empty()) {
    obj.fail("workloads", "must be a non-empty array of workloads");
  }
  for (size_t i = 0; i < workloads->size(); ++i) {
    s.workloads.push_back(parse_workload((*workloads)[i], i, file, base_dir));
  }
  s.slo_classes = gather_slo_classes(s.workloads, root, file);
  s.priorities = parse_priorities(obj, s.slo_classes);
  s.pools = parse_fleet(obj.child("fleet"), file, base_dir);
  check_acceptance_classes(s.pools, s.slo_classes, file);
  s.router = parse_router(obj);
  s.model_router = parse_model_router(obj, s.pools, s.workloads);
  s.output = parse_output(obj);
  s.metrics = parse_metrics_spec(obj);
  s.network = parse_network(obj, s.pools, s.workloads);
  parse_kv_transfer(obj, s);
  parse_energy(obj, s);
  obj.finish({"name", "seed", "duration_s", "timeline_interval_s", "workloads", "fleet", "router",
              "output", "metrics", "network", "kv_transfer", "priorities", "energy",
              "model_router"});
  s.set_seed(s.seed);
  return s;
}

nlohmann::json parse_scenario_json_text(const std::string& text, const std::string& file) {
  return parse_strict_json(text, file);
}

Scenario load_scenario_text(const std::string& text, const std::string& file,
                            const std::string& base_dir) {
  return parse_scenario(parse_scenario_json_text(text, file), file, base_dir);
}

std::string read_scenario_file_text(const std::string& path) {
  if (std::filesystem::is_directory(path)) {
    throw InputError(fmt::format("{}: is a directory, not a scenario file", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open scenario file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Scenario load_scenario_file(const std::string& path) {
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  return load_scenario_text(read_scenario_file_text(path), path, base_dir);
}

}  // namespace tidal::sim
