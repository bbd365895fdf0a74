// Host drafting time of one step: the n-gram lookup an engine runs before every step for each
// sequence it has already scheduled (context > 0), whether or not the lookup proposes anything
// (SpeculativeSpec::draft_seconds_per_seq, draft_seconds_per_context_token).
#pragma once

#include <span>

#include "perf/step_time_model.h"
#include "sim/scenario.h"

namespace tidal::sim {

// Sum over `batch`'s sequences with context of seconds_per_seq + seconds_per_context_token x
// context; 0 when `spec` does not speculate.
double host_drafting_seconds(const SpeculativeSpec& spec, std::span<const perf::SeqWork> batch);

}  // namespace tidal::sim
