// A scenario: everything one simulation run needs (DESIGN.md, "Scenario"; every key and its
// default in docs/scenario.md). load_scenario* validate strictly — unknown keys, wrong types
// and impossible configurations are InputErrors naming the file and the JSON path — and resolve
// every default, so the Scenario below is complete and scenario_to_json echoes it in full.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/kv/block_manager.h"
#include "engine/sched/config.h"
#include "sim/perf/memory_plan.h"
#include "sim/perf/step_time_model.h"
#include "traces/format.h"

namespace tidal::sim {

// Latency bounds of an SLO class; a request meets the SLO when every given bound holds.
struct SloBounds {
  std::optional<double> ttft_s;
  std::optional<double> tpot_s;
  std::optional<double> e2e_s;

  bool operator==(const SloBounds&) const = default;
};

struct TraceSource {
  std::string path;           // as written in the scenario
  std::string resolved_path;  // relative paths resolved against the scenario's folder
  std::optional<traces::TraceFormat> format;  // empty: detected from the file's first line
};

struct WorkloadSpec {
  std::string name;                         // default "workload<i>"
  std::optional<TraceSource> trace;         // exactly one of trace / generator
  std::optional<nlohmann::json> generator;  // a traces::generate spec, verbatim
  std::optional<std::string> tenant;        // overrides the requests' own tenant when given
  std::string slo_class = "default";        // every request of the workload gets this class
  SloBounds slo;
  double time_scale = 1.0;    // arrival times are multiplied by this ...
  double rate_scale = 1.0;    // ... and divided by this
  double length_scale = 1.0;  // prompt and output lengths are multiplied by this
  double start_s = 0.0;       // added to every arrival time after scaling
  uint64_t seed = 0;          // generator seed, derived from the scenario seed and the index
};

struct PerfSpec {
  std::string kind = "roofline";  // roofline | profile
  std::string profile;            // profile JSON path as written (kind == profile)
  std::string resolved_profile;   // resolved against the scenario's folder
};

// One pool of identical replicas. Figures derived from the catalogs are resolved here.
struct PoolSpec {
  std::string name;             // default "pool<i>"
  std::string model;            // catalog name (canonical spelling)
  std::string gpu;              // catalog name (canonical spelling)
  perf::Deployment deployment;  // tp, dtypes, gpu_memory_utilization, block_size, token budget
  int32_t num_replicas = 1;
  bool prefix_caching = true;
  double swap_space_gib = 4.0;  // CPU swap space per GPU for preemption by swap
  sched::SchedulerConfig scheduler;
  PerfSpec perf;
  std::optional<double> price_per_gpu_hour;  // overrides the catalog's on-demand price

  // Resolved at load time.
  perf::MemoryPlan memory;
  kv::BlockManagerConfig kv;  // num_gpu_blocks from memory, num_cpu_blocks from swap space
  double resolved_price_per_gpu_hour = 0.0;
  std::shared_ptr<const perf::StepTimeModel> step_model;  // roofline or profiled, per `perf`

  int32_t num_gpus() const { return num_replicas * deployment.tp; }
};

struct RouterSpec {
  std::string policy = "least_outstanding_requests";  // see router_names()
};

struct OutputSpec {
  bool requests_csv = true;
  bool timeline_csv = true;
  bool trace_json = true;
  int64_t trace_max_slices = 20000;  // batch-step slices written to trace.json at most
};

// The SLO of one class, gathered from the workloads that name it.
struct SloClass {
  std::string name;
  SloBounds slo;
};

struct Scenario {
  std::string file;      // label that starts every message ("scenario.json", "<built-in>")
  std::string base_dir;  // relative paths resolve against this folder ("" = current folder)
  std::string name;      // default: the file name without extension
  uint64_t seed = 0;
  std::optional<double> duration_s;  // requests arriving at or after it are left out
  double timeline_interval_s = 1.0;
  std::vector<WorkloadSpec> workloads;
  std::vector<PoolSpec> pools;
  RouterSpec router;
  OutputSpec output;
  std::vector<SloClass> slo_classes;  // sorted by name, one per slo_class in use

  int32_t num_replicas() const;
  // Re-derives every workload's generator seed (call after changing `seed`).
  void set_seed(uint64_t new_seed);
};

// Parses and validates. `file` labels messages; `base_dir` resolves relative paths; the
// default name comes from `file`'s stem.
Scenario parse_scenario(const nlohmann::json& root, const std::string& file,
                        const std::string& base_dir);
// Reads a scenario file (JSON syntax errors become InputErrors with line and column).
Scenario load_scenario_file(const std::string& path);
// Parses scenario text, e.g. the built-in default; `file` labels messages.
Scenario load_scenario_text(const std::string& text, const std::string& file,
                            const std::string& base_dir);

// The complete resolved scenario, every key present, for summary.json.
nlohmann::ordered_json scenario_to_json(const Scenario& scenario);

// The seed a workload's generator gets: mix of the scenario seed and the workload index.
uint64_t workload_seed(uint64_t scenario_seed, size_t workload_index);

}  // namespace tidal::sim
