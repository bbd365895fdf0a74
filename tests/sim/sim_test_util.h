// Helpers shared by the simulator suites: scenarios from JSON text, temporary trace files.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "sim/scenario.h"
#include "tests/scratch_folder.h"
#include "traces/request.h"
#include "traces/writer.h"

namespace tidal::sim::testing {

inline Scenario scenario_from(const nlohmann::json& j, const std::string& base_dir = "") {
  return parse_scenario(j, "scenario.json", base_dir);
}

// The InputError scenario_from gives `j`, or "no error".
inline std::string scenario_error(const nlohmann::json& j, const std::string& base_dir = "") {
  try {
    scenario_from(j, base_dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// A scratch folder tidal_sim_<pid>_<name>, removed at scope exit, and trace files in it.
class TempDir : public ScratchFolder {
 public:
  explicit TempDir(const std::string& name) : ScratchFolder("tidal_sim", name) {}

  // Writes `requests` as tidal JSONL into the folder; returns the file name.
  std::string write_trace(const std::string& name, const std::vector<Request>& requests) const {
    std::ofstream out(path() / name);
    traces::write_jsonl(requests, out);
    return name;
  }
};

inline Request make_request(int64_t id, double arrival_s, int64_t prompt, int64_t output) {
  Request r;
  r.id = id;
  r.arrival_s = arrival_s;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  return r;
}

// One pool of `num_replicas` Llama-3-8B on H100, with scheduler overrides.
inline nlohmann::json h100_pool(int num_replicas, const nlohmann::json& scheduler = {}) {
  nlohmann::json pool = {
      {"model", "llama-3-8b"}, {"gpu", "H100-SXM"}, {"num_replicas", num_replicas}};
  if (!scheduler.is_null()) pool["scheduler"] = scheduler;
  return pool;
}

// A 10 s Poisson workload and one pool of `model` on H200; `pool_extra` is appended to the
// pool object as written (its members, each after a comma).
inline std::string one_pool_text(const std::string& model, const std::string& pool_extra) {
  return R"({"workloads": [{"generator": {"kind": "poisson", "rate": 2, "duration_s": 10}}],
             "fleet": {"pools": [{"model": ")" +
         model + R"(", "gpu": "H200")" + pool_extra + "}]}}";
}

inline Scenario load_one_pool(const std::string& model, const std::string& pool_extra) {
  return load_scenario_text(one_pool_text(model, pool_extra), "scenario.json", "");
}

// The one-line error of load_one_pool, or "(no error)".
inline std::string one_pool_error(const std::string& model, const std::string& pool_extra) {
  try {
    load_one_pool(model, pool_extra);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace tidal::sim::testing
