// The kernel-table step-time model: every GEMM, attention, MoE layer and all-reduce of a step
// priced from the measured kernels of a real engine on a real GPU (kernel_db_costs.h), the rest
// by the roofline. docs/perf.md, "Kernel-table model (`kernel_db`)".
#pragma once

#include <memory>

#include "perf/gpu_catalog.h"
#include "perf/kernel_db_coverage.h"
#include "perf/kernel_db_folders.h"
#include "perf/memory_plan.h"
#include "perf/model_catalog.h"
#include "perf/roofline_model.h"
#include "perf/step_time_model.h"

namespace tidal::perf {

// Loads the tables of (spec.dir, gpu, engine) once per process (kernel_db_tables) and builds the
// model on TabulatedStepModel, its per-count tables sized by fallback_options. fallback_options
// price what the tables lack and scale the tables beyond their measured ranges. Writes the
// coverage to *coverage_out when given. InputErrors: those of resolve_kernel_db_folders and of
// loading the tables, and the roofline's deployment checks.
std::unique_ptr<StepTimeModel> make_kernel_db_model(const KernelDbSpec& spec,
                                                    const ModelSpec& model, const GpuSpec& gpu,
                                                    const Deployment& deployment,
                                                    const RooflineOptions& fallback_options = {},
                                                    KernelDbCoverage* coverage_out = nullptr);

}  // namespace tidal::perf
