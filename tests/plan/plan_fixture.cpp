#include "tests/plan/plan_fixture.h"

#include <fstream>
#include <sstream>

namespace tidal::plan::testing {

nlohmann::json small_scenario() {
  return nlohmann::json::parse(R"({
    "name": "plan-small",
    "seed": 11,
    "workloads": [
      {"name": "chat", "tenant": "app", "slo_class": "interactive",
       "slo": {"ttft_s": 0.5},
       "generator": {"kind": "poisson", "rate": 12, "duration_s": 60,
                     "prompt": {"dist": "lognormal", "median": 1200, "sigma": 0.6, "max": 6000},
                     "output": {"dist": "lognormal", "median": 200, "sigma": 0.5, "max": 800}}}
    ],
    "fleet": {"pools": [{"name": "gpus", "model": "llama-3-8b", "gpu": "H100-SXM",
                         "num_replicas": 1,
                         "scheduler": {"policy": "continuous", "max_num_seqs": 128}}]},
    "output": {"trace_json": false}
  })");
}

std::string write_json(const std::filesystem::path& path, const nlohmann::json& value) {
  std::ofstream(path, std::ios::binary) << value.dump(2) << '\n';
  return path.string();
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace tidal::plan::testing
