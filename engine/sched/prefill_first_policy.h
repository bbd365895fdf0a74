// prefill_first: the batching SGLang runs by default (`enable_mixed_chunk` off). A step is
// either a prefill step (prompt chunks only) or a decode step (decodes only), never both:
//   - prefill step whenever a prompt can run: the prompts already being prefilled take their
//     next chunk first, then waiting requests are admitted FCFS, each taking what is left of
//     the max_num_batched_tokens budget (SGLang's chunked_prefill_size); at most max_num_seqs
//     requests run;
//   - decode step otherwise (nothing waits, or nothing fits the blocks or the sequence limit):
//     every running request that is decoding.
// Decodes therefore wait while prompts keep arriving, as they do in SGLang. Preemption is by
// recompute only (SGLang retracts requests; it does not swap).
#pragma once

#include <memory>

#include "engine/sched/batch_policy.h"

namespace tidal::sched {

std::unique_ptr<BatchPolicy> make_prefill_first_policy();

}  // namespace tidal::sched
