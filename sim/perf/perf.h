// Everything sim/perf offers, for callers that want one include.
#pragma once

#include "sim/perf/dtype.h"
#include "sim/perf/gpu_catalog.h"
#include "sim/perf/memory_plan.h"
#include "sim/perf/model_catalog.h"
#include "sim/perf/profile.h"
#include "sim/perf/profiled_model.h"
#include "sim/perf/roofline_model.h"
#include "sim/perf/step_time_model.h"
#include "sim/perf/vidur_import.h"
