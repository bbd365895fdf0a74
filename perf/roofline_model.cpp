#include "perf/roofline_model.h"

#include "perf/roofline_costs.h"
#include "perf/step_costs.h"

namespace tidal::perf {

std::unique_ptr<StepTimeModel> make_roofline_model(const ModelSpec& model, const GpuSpec& gpu,
                                                   const Deployment& deployment,
                                                   const RooflineOptions& options) {
  return std::make_unique<TabulatedStepModel>(
      std::make_unique<RooflineCosts>(model, gpu, deployment, options),
      options.max_precomputed_tokens, options.max_precomputed_seqs, deployment.attention_dp);
}

}  // namespace tidal::perf
