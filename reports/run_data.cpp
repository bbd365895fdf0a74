#include "reports/run_data.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "base/input_error.h"
#include "reports/csv_columns.h"
#include "reports/engine_summary.h"
#include "reports/json_fields.h"
#include "reports/run_files.h"

namespace tidal::reports {

LatencyFigures read_latency_figures(const JsonView& parent, std::string_view key) {
  const JsonView v = parent.at(key);
  using L = LatencyFigures;
  LatencyFigures f;
  read_fields(v, f, "count", &L::count, "mean_s", &L::mean_s, "p50_s", &L::p50_s, "p90_s",
              &L::p90_s, "p99_s", &L::p99_s, "max_s", &L::max_s);
  return f;
}

namespace {

ClassFigures read_class(const JsonView& v) {
  using C = ClassFigures;
  ClassFigures c;
  c.name = v.string("slo_class");
  read_fields(v.at("slo"), c, "ttft_s", &C::slo_ttft_s, "tpot_s", &C::slo_tpot_s, "e2e_s",
              &C::slo_e2e_s);
  read_fields(v, c, "num_requests", &C::num_requests, "num_finished", &C::num_finished,
              "num_rejected", &C::num_rejected, "num_slo_met", &C::num_slo_met, "slo_attainment",
              &C::slo_attainment, "goodput_rps", &C::goodput_rps);
  c.ttft = read_latency_figures(v, "ttft");
  c.tpot = read_latency_figures(v, "tpot");
  c.e2e = read_latency_figures(v, "e2e");
  return c;
}

// A pool joins three lists of summary.json by index: the echoed scenario, the resolved figures
// and the costs.
// One line naming the step-time model, the engine preset and the calibration with its errors;
// runs written before summary.json held the model say "roofline".
std::string step_time_model_line(const JsonView& resolved_pool) {
  if (!resolved_pool.has("step_time_model")) return "roofline";
  const JsonView model = resolved_pool.at("step_time_model");
  std::string line = model.string("kind");
  if (line == "roofline") line += " (judged efficiencies, not fitted to a real engine)";
  if (model.has("kernel_db")) {
    const nlohmann::json& operators = model.at("kernel_db").value().at("operators");
    int64_t from_tables = 0;
    int64_t used = 0;
    for (const auto& [op, coverage] : operators.items()) {
      const std::string source = coverage.at("source").get<std::string>();
      if (source == "unused") continue;
      ++used;
      if (source == "table") ++from_tables;
    }
    line += fmt::format(" ({} of {} op classes straight from the tables)", from_tables, used);
  }
  if (resolved_pool.has("engine")) {
    const JsonView engine = resolved_pool.at("engine");
    line += fmt::format(", engine {} {}", engine.string("name"), engine.string("version"));
  }
  if (model.has("calibration")) {
    const JsonView c = model.at("calibration");
    line += fmt::format(
        ", calibrated ({} rows of {} models: TTFT {:.1f}%, TPOT {:.1f}% MAPE on "
        "them)",
        c.integer("fitted_on_rows"), c.strings("fitted_on_models").size(),
        c.number("ttft_mape_pct"), c.number("tpot_mape_pct"));
    if (c.has("held_out")) {
      const JsonView h = c.at("held_out");
      line += fmt::format(
          "; on models it was not fitted to ({} rows of {} architectures, each left out of its "
          "fit): TTFT {:.1f}%, TPOT {:.1f}% MAPE, uncalibrated {:.1f}%, {:.1f}%",
          h.integer("num_rows"), h.integer("num_architectures"), h.number("ttft_mape_pct"),
          h.number("tpot_mape_pct"), h.number("uncalibrated_ttft_mape_pct"),
          h.number("uncalibrated_tpot_mape_pct"));
      if (const int64_t unfinished = h.integer("num_rows_unfinished"); unfinished > 0) {
        line += fmt::format(" ({} more rows: no measured request finished in a prediction)",
                            unfinished);
      }
    } else {
      line += "; not measured on models it was not fitted to (tidal calibrate --held-out)";
    }
  } else {
    line += ", uncalibrated";
  }
  return line;
}

PoolFigures read_pool(const JsonView& scenario_pool, const JsonView& resolved_pool,
                      const JsonView& cost_pool) {
  using P = PoolFigures;
  PoolFigures p;
  // Names from the resolved figures: the echo holds the model and GPU as given (a config path or
  // an inline object, too).
  read_fields(scenario_pool, p, "name", &P::name, "tp", &P::tp, "weight_dtype", &P::weight_dtype,
              "kv_dtype", &P::kv_dtype, "num_replicas", &P::num_replicas);
  read_fields(resolved_pool, p, "model", &P::model, "gpu", &P::gpu);
  p.step_time_model = step_time_model_line(resolved_pool);
  p.policy = scenario_pool.at("scheduler").string("policy");
  p.num_gpu_blocks = resolved_pool.integer("num_gpu_blocks");
  read_fields(cost_pool, p, "num_gpus", &P::num_gpus, "price_per_gpu_hour", &P::price_per_gpu_hour,
              "gpu_hours", &P::gpu_hours, "dollars", &P::dollars, "utilization", &P::utilization,
              "num_steps", &P::num_steps);
  p.on_demand_per_gpu_hour = scenario_pool.nullable_number("price_per_gpu_hour");
  if (scenario_pool.has("pricing")) {
    const JsonView pricing = scenario_pool.at("pricing");
    if (pricing.has("market")) p.market = pricing.string("market");
    if (pricing.has("on_demand_per_gpu_hour")) {
      p.on_demand_per_gpu_hour = pricing.number("on_demand_per_gpu_hour");
    }
  }
  if (scenario_pool.has("lossy")) {
    const JsonView lossy = scenario_pool.at("lossy");
    PoolLossy l;
    l.kv_kept_ratio = lossy.number("kv_kept_ratio");
    if (const std::optional<double> window = lossy.nullable_number("kv_window_tokens")) {
      l.kv_window_tokens = static_cast<int64_t>(*window);
    }
    l.layer_skip_share = lossy.number("layer_skip_share");
    l.declared_quality_loss = lossy.nullable_number("declared_quality_loss");
    p.lossy = l;
  }
  if (cost_pool.string("pool") != p.name) {
    cost_pool.fail("pool", fmt::format("\"{}\" does not match scenario.fleet.pools name \"{}\"",
                                       cost_pool.string("pool"), p.name));
  }
  return p;
}

// Lifecycle states first, in lifecycle order; other names after, by name.
int state_rank(const std::string& state) {
  static const std::vector<std::string> kOrder{"requested", "provisioning", "loading", "starting",
                                               "warm",      "draining",     "stopped"};
  const auto it = std::find(kOrder.begin(), kOrder.end(), state);
  return static_cast<int>(it - kOrder.begin());
}

// An object of name -> number.
std::vector<std::pair<std::string, double>> number_map(const JsonView& v) {
  if (!v.value().is_object()) v.fail("", "expected an object of name -> number");
  std::vector<std::pair<std::string, double>> out;
  for (const auto& item : v.value().items()) out.emplace_back(item.key(), v.number(item.key()));
  return out;
}

FleetFigures read_fleet(const JsonView& f) {
  using F = FleetFigures;
  FleetFigures fleet;
  read_fields(f, fleet, "num_replicas_total", &F::num_replicas_total, "num_scale_ups",
              &F::num_scale_ups, "num_scale_downs", &F::num_scale_downs, "num_spot_interruptions",
              &F::num_spot_interruptions, "num_requeues", &F::num_requeues);
  fleet.pools = read_each(f, "pools", [](const JsonView& p) {
    PoolColdStart c;
    c.pool = p.string("pool");
    c.peak_replicas = p.integer("peak_replicas");
    const JsonView cold = p.at("cold_start");
    c.from_snapshot = cold.boolean("from_snapshot");
    for (const char* stage : {"total_s", "provisioning_s", "image_pull_s", "weight_load_s",
                              "engine_init_s", "snapshot_restore_s", "kv_alloc_s"}) {
      c.stages_s.emplace_back(stage, cold.number(stage));
    }
    return c;
  });
  return fleet;
}

// fleet.pools[].load, where the run has it, into the pools of the same name.
void read_pool_loads(const JsonView& f, std::vector<PoolFigures>& pools) {
  const JsonView fleet_pools = f.at("pools");
  for (size_t i = 0; i < fleet_pools.size() && i < pools.size(); ++i) {
    const JsonView p = fleet_pools.at(i);
    if (!p.has("load")) continue;
    const JsonView l = p.at("load");
    using L = PoolLoad;
    PoolLoad load;
    read_fields(l, load, "max_num_seqs", &L::max_num_seqs, "mean_batch", &L::mean_batch,
                "p99_batch", &L::p99_batch, "mean_kv_usage", &L::mean_kv_usage, "peak_kv_usage",
                &L::peak_kv_usage);
    load.mfu = l.nullable_number("mfu");
    load.mbu = l.nullable_number("mbu");
    pools[i].load = load;
  }
}

int32_t intern(std::map<std::string, int32_t>& ids, const std::string& name) {
  const auto [it, inserted] = ids.emplace(name, static_cast<int32_t>(ids.size()));
  return it->second;
}

// Renumbers first-seen ids to the sorted order of the names.
std::vector<std::string> sorted_names(const std::map<std::string, int32_t>& ids,
                                      std::vector<int32_t>& index) {
  std::vector<int32_t> rank(ids.size());  // [num first-seen ids] sorted position
  std::vector<std::string> names;
  for (const auto& [name, id] : ids) {
    rank[static_cast<size_t>(id)] = static_cast<int32_t>(names.size());
    names.push_back(name);
  }
  for (int32_t& i : index) i = rank[static_cast<size_t>(i)];
  return names;
}

// The `costs` block and what joins it (the scenario's and the resolved pools) of a simulator
// run.
void read_costs(const JsonView& doc, const JsonView& scenario, RunSummary& s) {
  using S = RunSummary;
  const JsonView costs = doc.at("costs");
  read_fields(costs, s, "gpu_hours", &S::gpu_hours, "dollars", &S::dollars,
              "dollars_per_1m_input_tokens", &S::dollars_per_1m_input_tokens,
              "dollars_per_1m_output_tokens", &S::dollars_per_1m_output_tokens,
              "dollars_per_1m_tokens", &S::dollars_per_1m_tokens);
  const JsonView scenario_pools = scenario.at("fleet").at("pools");
  const JsonView resolved_pools = doc.at("resolved").at("pools");
  const JsonView cost_pools = costs.at("pools");
  if (resolved_pools.size() != scenario_pools.size() ||
      cost_pools.size() != scenario_pools.size()) {
    cost_pools.fail("", fmt::format("{} pools, scenario.fleet.pools has {}", cost_pools.size(),
                                    scenario_pools.size()));
  }
  for (size_t i = 0; i < scenario_pools.size(); ++i) {
    s.pools.push_back(read_pool(scenario_pools.at(i), resolved_pools.at(i), cost_pools.at(i)));
  }
  if (costs.has("dollars_by_state")) {
    s.dollars_by_state = number_map(costs.at("dollars_by_state"));
    std::stable_sort(
        s.dollars_by_state.begin(), s.dollars_by_state.end(),
        [](const auto& a, const auto& b) { return state_rank(a.first) < state_rank(b.first); });
  }
  if (costs.has("dollars_granularity")) s.dollars_granularity = costs.number("dollars_granularity");
  if (costs.has("dollars_by_rate_class")) {
    s.dollars_by_rate_class = number_map(costs.at("dollars_by_rate_class"));
  }
  if (costs.has("egress")) s.egress = read_egress_figures(costs.at("egress"));
  if (costs.has("peak_sized_dollars")) s.peak_sized_dollars = costs.number("peak_sized_dollars");
  if (costs.has("peak_sized_savings")) s.peak_sized_savings = costs.number("peak_sized_savings");
  if (costs.has("spot_savings_dollars")) {
    s.spot_savings_dollars = costs.number("spot_savings_dollars");
  }
}

}  // namespace

RunSummary read_summary(const std::string& path) {
  const nlohmann::json root = read_json_file(path);
  const JsonView doc(root, path);
  RunSummary s;
  if (doc.has("scenario")) {
    const JsonView scenario = doc.at("scenario");
    s.scenario_name = scenario.string("name");
    s.seed = static_cast<uint64_t>(scenario.integer("seed"));
  } else if (doc.has("engine")) {
    s.engine = read_engine_figures(doc);
    s.scenario_name = "engine: " + s.engine->model;
    s.seed = static_cast<uint64_t>(doc.at("engine").integer("seed"));
    s.priced = false;
  } else {
    doc.fail("scenario",
             "missing (a simulator run has \"scenario\", an engine run has \"engine\"; "
             "this file has neither)");
  }
  using S = RunSummary;
  const JsonView m = doc.at("metrics");
  read_fields(m, s, "duration_s", &S::duration_s, "num_requests", &S::num_requests, "num_finished",
              &S::num_finished, "num_rejected", &S::num_rejected);
  if (m.has("warmup")) s.num_warmup_excluded = m.at("warmup").integer("num_excluded");
  const JsonView rejections = m.at("rejections");
  if (!rejections.value().is_object()) rejections.fail("", "expected an object");
  for (const auto& item : rejections.value().items()) {
    s.rejections.emplace_back(item.key(), rejections.integer(item.key()));
  }
  read_fields(m, s, "num_input_tokens", &S::num_input_tokens, "num_output_tokens",
              &S::num_output_tokens, "num_preemptions", &S::num_preemptions,
              "num_prefix_hit_tokens", &S::num_prefix_hit_tokens, "request_throughput_rps",
              &S::request_throughput_rps, "input_tokens_per_s", &S::input_tokens_per_s,
              "output_tokens_per_s", &S::output_tokens_per_s);
  s.ttft = read_latency_figures(m, "ttft");
  s.tpot = read_latency_figures(m, "tpot");
  s.itl = read_latency_figures(m, "itl");
  s.e2e = read_latency_figures(m, "e2e");
  s.queue_delay = read_latency_figures(m, "queue_delay");
  read_fields(m, s, "num_slo_met", &S::num_slo_met, "slo_attainment", &S::slo_attainment,
              "goodput_rps", &S::goodput_rps);
  if (m.has("finished_slo_share")) s.finished_slo_share = m.nullable_number("finished_slo_share");
  s.classes = read_each(m, "slo_classes", read_class);
  s.utilization = m.number("utilization");

  if (s.priced) read_costs(doc, doc.at("scenario"), s);
  if (doc.has("fleet")) {
    s.fleet = read_fleet(doc.at("fleet"));
    read_pool_loads(doc.at("fleet"), s.pools);
  }
  if (doc.has("energy")) s.energy = read_energy_figures(doc.at("energy"));
  if (doc.has("by_model")) s.models = read_model_figures(doc.at("by_model"));
  if (doc.has("lora")) s.lora = read_lora_figures(doc.at("lora"));
  return s;
}

RequestRows read_requests(const std::string& path) {
  const std::vector<ColumnRequest> wanted{
      {"tenant", CellKind::text},
      {"slo_class", CellKind::text},
      {"arrival_s", CellKind::number},
      {"prompt_tokens", CellKind::number},
      {"output_tokens", CellKind::number},
      {"ttft_s", CellKind::optional_number},
      {"tpot_s", CellKind::optional_number},
      {"e2e_s", CellKind::optional_number},
      {"queue_delay_s", CellKind::optional_number},
      {"slo_met", CellKind::number},
      {"status", CellKind::text},
      {"hol_delay_s", CellKind::optional_number, false},
      {"hol_caused_s", CellKind::optional_number, false},
  };
  CsvColumns csv = read_csv_columns(path, wanted);
  RequestRows rows;
  std::map<std::string, int32_t> tenant_ids, class_ids;
  for (const std::string& t : csv.columns[0].texts) rows.tenant.push_back(intern(tenant_ids, t));
  for (const std::string& c : csv.columns[1].texts) {
    rows.slo_class.push_back(intern(class_ids, c));
  }
  rows.tenant_names = sorted_names(tenant_ids, rows.tenant);
  rows.class_names = sorted_names(class_ids, rows.slo_class);
  rows.arrival_s = std::move(csv.columns[2].numbers);
  rows.prompt_tokens = std::move(csv.columns[3].numbers);
  rows.output_tokens = std::move(csv.columns[4].numbers);
  rows.ttft_s = std::move(csv.columns[5].numbers);
  rows.tpot_s = std::move(csv.columns[6].numbers);
  rows.e2e_s = std::move(csv.columns[7].numbers);
  rows.queue_delay_s = std::move(csv.columns[8].numbers);
  for (size_t i = 0; i < csv.columns[9].numbers.size(); ++i) {
    const double v = csv.columns[9].numbers[i];
    if (v != 0.0 && v != 1.0) {
      throw InputError(fmt::format("{}:{}: slo_met: expected 0 or 1, got {}", path, i + 2, v));
    }
    rows.slo_met.push_back(v == 1.0 ? 1 : 0);
  }
  for (const std::string& status : csv.columns[10].texts) {
    rows.finished.push_back(status == "finished" ? 1 : 0);
  }
  if (csv.columns[11].present) rows.hol_delay_s = std::move(csv.columns[11].numbers);
  if (csv.columns[12].present) rows.hol_caused_s = std::move(csv.columns[12].numbers);
  return rows;
}

TimelineRows read_timeline(const std::string& path) {
  // The header decides which optional state columns to ask for.
  const CsvColumns header_only = read_csv_columns(path, {});
  std::vector<ColumnRequest> wanted;
  const std::vector<std::string> fixed{
      "start_s",     "end_s",   "arrivals", "finished",    "rejected", "output_tokens",
      "queue_depth", "running", "kv_usage", "utilization", "dollars",  "cumulative_dollars"};
  for (const std::string& name : fixed) wanted.push_back({name, CellKind::number, true});
  std::vector<std::string> state_columns, dollar_columns;
  for (const std::string& name : header_only.header) {
    if (name.starts_with("replicas_")) state_columns.push_back(name);
    if (name.starts_with("dollars_")) dollar_columns.push_back(name);
  }
  for (const std::string& name : state_columns) wanted.push_back({name, CellKind::number, true});
  for (const std::string& name : dollar_columns) wanted.push_back({name, CellKind::number, true});
  wanted.push_back({"queued_at_router", CellKind::number, false});
  const char* const maxima[] = {"queue_depth_max", "running_max", "kv_usage_max",
                                "queued_at_router_max"};
  for (const char* name : maxima) wanted.push_back({name, CellKind::number, false});
  CsvColumns csv = read_csv_columns(path, wanted);
  if (state_columns.empty()) {
    throw InputError(fmt::format("{}:1: no replicas_<state> column in the header", path));
  }

  TimelineRows rows;
  // Same order as `fixed` above.
  std::vector<double>* targets[] = {&rows.start_s,     &rows.end_s,    &rows.arrivals,
                                    &rows.finished,    &rows.rejected, &rows.output_tokens,
                                    &rows.queue_depth, &rows.running,  &rows.kv_usage,
                                    &rows.utilization, &rows.dollars,  &rows.cumulative_dollars};
  static_assert(std::size(targets) == 12, "one target per fixed column");
  size_t c = 0;
  for (std::vector<double>* target : targets) *target = std::move(csv.columns[c++].numbers);
  for (const std::string& name : state_columns) {
    rows.replicas_by_state.push_back({name.substr(9), std::move(csv.columns[c++].numbers)});
  }
  for (const std::string& name : dollar_columns) {
    rows.dollars_by_state.push_back({name.substr(8), std::move(csv.columns[c++].numbers)});
  }
  if (csv.columns[c].present) rows.queued_at_router = std::move(csv.columns[c].numbers);
  std::vector<double>* maxima_targets[] = {&rows.queue_depth_max, &rows.running_max,
                                           &rows.kv_usage_max, &rows.queued_at_router_max};
  for (std::vector<double>* target : maxima_targets) {
    ++c;
    if (csv.columns[c].present) *target = std::move(csv.columns[c].numbers);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!(rows.end_s[i] > rows.start_s[i])) {
      throw InputError(fmt::format("{}:{}: end_s: {} is not after start_s {}", path, i + 2,
                                   rows.end_s[i], rows.start_s[i]));
    }
  }
  return rows;
}

std::vector<const NamedSeries*> distinct_replica_states(const TimelineRows& t) {
  bool has_parts = false;
  for (const NamedSeries& s : t.replicas_by_state) {
    has_parts =
        has_parts || s.name == "requested" || s.name == "provisioning" || s.name == "loading";
  }
  std::vector<const NamedSeries*> states;
  for (const NamedSeries& s : t.replicas_by_state) {
    if (!(has_parts && s.name == "starting")) states.push_back(&s);
  }
  std::stable_sort(states.begin(), states.end(), [](const NamedSeries* a, const NamedSeries* b) {
    return state_rank(a->name) < state_rank(b->name);
  });
  return states;
}

std::optional<double> spot_savings_estimate(const RunSummary& s) {
  std::optional<double> savings;
  for (const PoolFigures& p : s.pools) {
    if (p.market != "spot" || !(p.price_per_gpu_hour > 0) || !p.on_demand_per_gpu_hour) continue;
    savings = savings.value_or(0.0) +
              p.dollars * (*p.on_demand_per_gpu_hour / p.price_per_gpu_hour - 1.0);
  }
  return savings;
}

std::optional<SpotSavings> spot_savings(const RunSummary& s) {
  const bool any_spot = std::any_of(s.pools.begin(), s.pools.end(),
                                    [](const PoolFigures& p) { return p.market == "spot"; });
  if (!any_spot) return std::nullopt;
  if (s.spot_savings_dollars) return SpotSavings{*s.spot_savings_dollars, false};
  if (const std::optional<double> estimate = spot_savings_estimate(s)) {
    return SpotSavings{*estimate, true};
  }
  return std::nullopt;
}

bool is_run_folder(const std::string& dir) {
  return std::filesystem::is_regular_file(std::filesystem::path(dir) / "summary.json");
}

RunData load_run(const std::string& dir) {
  const std::filesystem::path root(dir);
  if (!std::filesystem::is_directory(root)) {
    throw InputError(fmt::format("{}: not a folder", dir));
  }
  RunData run;
  run.dir = dir;
  run.summary = read_summary((root / "summary.json").string());
  const RunFiles files = read_run_files(dir);
  run.partial = files.partial;
  run.has_requests = use_run_file(dir, files, "requests.csv");
  run.has_timeline = use_run_file(dir, files, "timeline.csv");
  if (run.has_requests) run.requests = read_requests((root / "requests.csv").string());
  if (run.has_timeline) run.timeline = read_timeline((root / "timeline.csv").string());
  run.label = run.summary.scenario_name;
  const int64_t num_rows = run.summary.num_requests + run.summary.num_warmup_excluded;
  if (run.has_requests && static_cast<int64_t>(run.requests.size()) != num_rows) {
    throw InputError(fmt::format(
        "{}: {} rows, but summary.json metrics.num_requests is {} (plus {} warm-up requests)",
        (root / "requests.csv").string(), run.requests.size(), run.summary.num_requests,
        run.summary.num_warmup_excluded));
  }
  return run;
}

}  // namespace tidal::reports
