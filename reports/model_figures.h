// summary.json `by_model` (runs with model routing; docs/scenario.md, "Model routing") read
// into memory, strictly: a missing field is an InputError naming its JSON path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tidal::reports {

class JsonView;  // reports/json_fields.h

// One model the fleet serves (summary.json by_model.models[]).
struct ModelFigures {
  std::string model;
  std::vector<std::string> pools;
  int64_t num_requests = 0;  // answered by it
  int64_t num_finished = 0;
  int64_t num_input_tokens = 0;
  int64_t num_output_tokens = 0;
  // Finished requests' TTFT and E2E (seconds; empty when none finished).
  std::optional<double> ttft_p50_s, ttft_p99_s, e2e_p50_s, e2e_p99_s;
  double dollars = 0.0;
  std::optional<double> quality_kept;
  std::optional<int64_t> num_escalated;  // cascade only
};

struct ModelRoutingFigures {
  std::string policy;
  std::optional<int64_t> num_private, num_escalated;
  std::optional<double> quality_kept;
  std::vector<ModelFigures> models;
};

// summary.json `by_model`.
ModelRoutingFigures read_model_figures(const JsonView& by_model);

}  // namespace tidal::reports
