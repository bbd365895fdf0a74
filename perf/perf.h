// Everything perf offers, for callers that want one include.
#pragma once

#include "perf/dtype.h"
#include "perf/gpu_catalog.h"
#include "perf/memory_plan.h"
#include "perf/model_catalog.h"
#include "perf/profile.h"
#include "perf/profiled_model.h"
#include "perf/roofline_model.h"
#include "perf/step_time_model.h"
#include "perf/vidur_import.h"
