// The kernel_db prediction of one deployment written as a tidal profile (profile.h), so the
// profiled model and the reports can use it (`tidal profile import-kernel-db`).
#pragma once

#include "perf/gpu_catalog.h"
#include "perf/kernel_db_coverage.h"
#include "perf/kernel_db_folders.h"
#include "perf/memory_plan.h"
#include "perf/model_catalog.h"
#include "perf/profile.h"
#include "perf/roofline_model.h"

namespace tidal::perf {

// Operator classes priced from the tables become step-scope tables over a grid of token (or
// logit-row) counts, 1..32768 (the profiled model scales linearly beyond the last point);
// roofline classes are marked roofline, classes the model does not run are left out. Attention
// is measured when both prefill and decode come from the tables: prefill per layer over
// (chunk, context) of one sequence, decode per layer over (batch, mean context). All-reduce (tp >
// 1): one all-reduce over message bytes. CPU overhead: roofline. At the grid points the profiled
// model reproduces the kernel_db model; between them it interpolates linearly, and a step with
// several prefill chunks is summed chunk by chunk (kernel_db pays the kernel's fixed cost once).
// InputErrors as make_kernel_db_model's, and for a model with linear-attention layers.
Profile kernel_db_profile(const KernelDbSpec& spec, const ModelSpec& model, const GpuSpec& gpu,
                          const Deployment& deployment, const RooflineOptions& options = {},
                          KernelDbCoverage* coverage_out = nullptr);

}  // namespace tidal::perf
