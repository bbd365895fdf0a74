// static: request-level batching as HF- and Triton-style servers run it. When no batch runs and
// static_batch_size requests wait (or the oldest has waited static_batch_timeout_s), a batch is
// formed of up to static_batch_size waiting requests, FCFS, as many as fit in memory:
//   - memory, not the step's token budget, limits the batch. Such a server pads every member
//     to the batch's longest prompt and longest output, so a batch of n members whose longest
//     prompt is P and longest output O reserves n x blocks(P + O - 1) GPU blocks; the batch
//     takes members while that padded reservation fits the free blocks less the watermark.
//     (The real allocation, each member's own prompt + output - 1 tokens, is never larger, so
//     a static batch never preempts.) The output lengths are the trace's, as for
//     guaranteed_no_evict admission.
//   - the batch is prefilled first: its prompts run FCFS in prompt chunks of at most
//     max_num_batched_tokens per step (the activation budget both executors size their
//     buffers for), so a batch of 32 prompts of 600 tokens takes three prefill steps; a
//     member samples its first token when its last chunk runs;
//   - then every member decodes, one token (or 1 + k) per step, until the last one finishes;
//     nothing is admitted meanwhile.
// Padding costs memory here, not compute: the plan lists each member's own tokens and the
// step-time models price that ragged batch, as the engine executes it.
#pragma once

#include <memory>

#include "engine/sched/batch_policy.h"

namespace tidal::sched {

std::unique_ptr<BatchPolicy> make_static_policy(const SchedulerConfig& config);

}  // namespace tidal::sched
