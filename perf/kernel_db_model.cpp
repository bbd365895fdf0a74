#include "perf/kernel_db_model.h"

#include "perf/kernel_db_costs.h"
#include "perf/kernel_db_tables.h"
#include "perf/step_costs.h"

namespace tidal::perf {

std::unique_ptr<StepTimeModel> make_kernel_db_model(const KernelDbSpec& spec,
                                                    const ModelSpec& model, const GpuSpec& gpu,
                                                    const Deployment& deployment,
                                                    const RooflineOptions& fallback_options,
                                                    KernelDbCoverage* coverage_out) {
  auto costs = std::make_unique<KernelDbCosts>(kernel_db_tables(spec, gpu), spec, model, gpu,
                                               deployment, fallback_options);
  if (coverage_out != nullptr) *coverage_out = costs->coverage();
  return std::make_unique<TabulatedStepModel>(
      std::move(costs), fallback_options.max_precomputed_tokens,
      fallback_options.max_precomputed_seqs, deployment.attention_dp);
}

}  // namespace tidal::perf
