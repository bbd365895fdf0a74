#include "perf/step_work.h"

namespace tidal::perf {

StepWorkCounter::StepWorkCounter(const ModelSpec& model, const GpuSpec& gpu,
                                 const Deployment& deployment)
    : costs_(model, gpu, deployment, RooflineOptions{}),
      peak_bandwidth_Bps_(gpu.hbm_bandwidth_Bps),
      prices_by_sums_(costs_.prices_by_sums()) {}

}  // namespace tidal::perf
