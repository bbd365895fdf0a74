#include "sim/model_summary.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/sample_set.h"
#include "traces/run_figures.h"

namespace tidal::sim {
namespace {

struct ModelTotals {
  int64_t num_requests = 0;
  int64_t num_finished = 0;
  int64_t num_quality_kept = 0;
  int64_t num_escalated = 0;     // cascade: its answers run again on the other model
  int64_t num_input_tokens = 0;  // finished requests
  int64_t num_output_tokens = 0;
  SampleSet ttft, e2e;  // finished requests
};

}  // namespace

nlohmann::ordered_json model_summary_json(const Scenario& scenario, const RunResult& result,
                                          const RunMetrics& metrics) {
  using ojson = nlohmann::ordered_json;
  const ModelAssignment& a = result.models;
  if (!a.active()) return nullptr;
  std::vector<ModelTotals> totals(a.models.size());  // [num_models]
  const bool cascade = !a.escalated.empty();
  const int32_t first_model = [&] {
    if (!cascade) return -1;
    const std::string& name = scenario.model_router->models.front().model;
    return static_cast<int32_t>(std::find(a.models.begin(), a.models.end(), name) -
                                a.models.begin());
  }();
  for (size_t i = 0; i < result.table.requests.size(); ++i) {
    const RequestRecord& rec = result.records[i];
    // The model that served it: its replica's; one never routed counts under the one it asked
    // for (none: it is left out).
    int32_t model = a.of_request[i];
    if (rec.replica >= 0) {
      const int32_t pool = result.replicas[static_cast<size_t>(rec.replica)].pool;
      model = a.model_of_pool[static_cast<size_t>(pool)];
    }
    if (model < 0) continue;
    if (cascade && a.escalated[i] != 0) {
      // Its first run was billed on the small model and computed a whole answer there.
      ModelTotals& first = totals[static_cast<size_t>(first_model)];
      ++first.num_escalated;
      first.num_input_tokens += result.table.requests[i].prompt_tokens;
      first.num_output_tokens += result.table.requests[i].output_tokens;
    }
    ModelTotals& t = totals[static_cast<size_t>(model)];
    ++t.num_requests;
    if (!a.quality_kept.empty() && a.quality_kept[i] != 0) ++t.num_quality_kept;
    if (rec.status != RequestStatus::finished) continue;
    ++t.num_finished;
    t.num_input_tokens += result.table.requests[i].prompt_tokens;
    t.num_output_tokens += rec.num_output_tokens_done;
    const RequestLatency lat = request_latency(rec);
    t.ttft.add(*lat.ttft_s);
    t.e2e.add(*lat.e2e_s);
  }
  ojson models = ojson::array();
  for (size_t m = 0; m < a.models.size(); ++m) {
    ModelTotals& t = totals[m];
    double dollars = 0.0;
    ojson pools = ojson::array();
    for (size_t p = 0; p < scenario.pools.size(); ++p) {
      if (a.model_of_pool[p] != static_cast<int32_t>(m)) continue;
      dollars += metrics.pools[p].dollars;
      pools.push_back(scenario.pools[p].name);
    }
    ojson quality = nullptr;
    if (!a.quality_kept.empty() && t.num_requests > 0) {
      quality = static_cast<double>(t.num_quality_kept) / static_cast<double>(t.num_requests);
    }
    models.push_back(ojson{{"model", a.models[m]},
                           {"pools", pools},
                           {"num_requests", t.num_requests},
                           {"num_finished", t.num_finished},
                           {"num_input_tokens", t.num_input_tokens},
                           {"num_output_tokens", t.num_output_tokens},
                           {"ttft", traces::latency_summary_json(t.ttft.summarize())},
                           {"e2e", traces::latency_summary_json(t.e2e.summarize())},
                           {"dollars", dollars},
                           {"quality_kept", quality}});
    if (cascade) models.back()["num_escalated"] = t.num_escalated;
  }
  ojson j{{"policy", scenario.model_router ? scenario.model_router->policy : "fixed"},
          {"models", models}};
  if (!a.is_private.empty()) {
    j["num_private"] = std::count(a.is_private.begin(), a.is_private.end(), 1);
  }
  if (cascade) j["num_escalated"] = std::count(a.escalated.begin(), a.escalated.end(), 1);
  if (!a.quality_kept.empty()) {
    int64_t kept = 0;
    for (const char k : a.quality_kept) kept += k;
    j["quality_kept"] = static_cast<double>(kept) / static_cast<double>(a.quality_kept.size());
  }
  return j;
}

}  // namespace tidal::sim
