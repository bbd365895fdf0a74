// steps.csv: one row per executed engine step, so the validation loop can feed the very same
// plans to the simulator's step-time models and compare with the measured durations.
//   step                 0-based index
//   start_s              when the scheduler was asked for the plan (run seconds)
//   duration_s           until the scheduler was told the outcome (copies, drafting, forward,
//                        sampling, scheduler bookkeeping in between)
//   execute_s            of which block copies + drafting + forward + sampling
//   draft_s              of which the draft model's forwards
//   num_seqs, num_batched_tokens
//   num_prefill_tokens   new tokens of sequences reading their prompt (or recomputing)
//   num_decode_tokens    new tokens of generating sequences (1 + their draft tokens each)
//   num_spec_tokens      draft tokens verified; num_accepted_tokens of them were accepted
//   num_preempted, swap_out_blocks, swap_in_blocks
//   seqs                 the plan's composition, one "new:context" per sequence in plan order,
//                        separated by spaces; a sequence verifying k draft tokens reads
//                        "new+k:context" (it computes new + k tokens), e.g. "512:0 1:130 1+2:77"
#pragma once

#include <ostream>

#include "engine/trace_replay.h"

namespace tidal::engine {

void write_steps_csv(const EngineRun& run, std::ostream& out);

}  // namespace tidal::engine
