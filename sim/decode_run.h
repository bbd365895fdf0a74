// A run of repeated decode steps whose per-request bookkeeping the event loop defers
// (sim/simulator_decode_run.cpp). While a replica repeats its step (the same sequences, each one
// token further: sched::Scheduler::repeat_step) and none of them finishes, every sequence's record
// and charge change the same way each step: one more token, shown one step later, the step's
// length as the gap. The loop counts the steps here and folds them into the records when the run
// ends or before anything reads those records, which leaves them as stepping one by one would.
#pragma once

#include <cstdint>
#include <vector>

namespace tidal::sim {

struct DecodeRun {
  std::vector<int64_t> request_ids;  // [num sequences] the run's; empty: no run
  int64_t start_ns = 0;              // end of the step before the run: its last tokens' step
  int64_t end_ns = 0;                // end of the run's latest step
  int64_t num_steps = 0;             // steps taken, not yet in the records
  // Steps it may still take: each sequence's charge covers them and none is its last token.
  int64_t num_steps_left = 0;
  int64_t longest_step_ns = 0;  // the largest gap it adds to its sequences
  int64_t num_itl_kept = 0;     // its sequences whose gaps are ITL samples

  bool active() const { return !request_ids.empty(); }
};

}  // namespace tidal::sim
