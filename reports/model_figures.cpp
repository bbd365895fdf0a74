#include "reports/model_figures.h"

#include "reports/json_fields.h"

namespace tidal::reports {

ModelRoutingFigures read_model_figures(const JsonView& v) {
  ModelRoutingFigures f;
  f.policy = v.string("policy");
  if (v.has("num_private")) f.num_private = v.integer("num_private");
  if (v.has("num_escalated")) f.num_escalated = v.integer("num_escalated");
  if (v.has("quality_kept")) f.quality_kept = v.number("quality_kept");
  f.models = read_each(v, "models", [](const JsonView& m) {
    using M = ModelFigures;
    ModelFigures model;
    read_fields(m, model, "model", &M::model, "num_requests", &M::num_requests, "num_finished",
                &M::num_finished, "num_input_tokens", &M::num_input_tokens, "num_output_tokens",
                &M::num_output_tokens, "dollars", &M::dollars);
    model.pools = m.strings("pools");
    const JsonView ttft = m.at("ttft");
    const JsonView e2e = m.at("e2e");
    if (ttft.integer("count") > 0) {
      model.ttft_p50_s = ttft.number("p50_s");
      model.ttft_p99_s = ttft.number("p99_s");
    }
    if (e2e.integer("count") > 0) {
      model.e2e_p50_s = e2e.number("p50_s");
      model.e2e_p99_s = e2e.number("p99_s");
    }
    if (m.has("quality_kept")) model.quality_kept = m.number("quality_kept");
    if (m.has("num_escalated")) model.num_escalated = m.integer("num_escalated");
    return model;
  });
  return f;
}

}  // namespace tidal::reports
