// The step-time model that interpolates a Profile's measured tables.
#pragma once

#include <memory>
#include <string>

#include "perf/gpu_catalog.h"
#include "perf/memory_plan.h"
#include "perf/model_catalog.h"
#include "perf/profile.h"
#include "perf/roofline_model.h"
#include "perf/step_time_model.h"

namespace tidal::perf {

// Sections marked roofline in the profile (and op classes the profile lacks and the model does not
// have, e.g. MoE ops of a dense model) are computed by a roofline model of (model, gpu,
// deployment, options). Errors are InputErrors prefixed with json_path (the place the profile is
// named, e.g. "scenario.json: fleet.pools[0].perf.profile"): profile TP or dtype differing from
// the deployment, model dimensions differing from the ModelSpec, an op class the model needs
// missing from the profile.
std::unique_ptr<StepTimeModel> make_profiled_model(const Profile& profile, const ModelSpec& model,
                                                   const GpuSpec& gpu, const Deployment& deployment,
                                                   const std::string& json_path,
                                                   const RooflineOptions& options = {});

}  // namespace tidal::perf
