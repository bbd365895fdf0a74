// The cost of n-gram drafting (engine::NgramDrafter, prompt lookup) relative to the target
// step it precedes. The engine drafts on the host before every step: one propose() per decoding
// sequence over all its known tokens. The simulator charges drafting as a share of the step
// (docs/scenario.md, `draft_cost_ratio`), so the profiler measures that share.
#pragma once

#include <cstdint>
#include <span>

#include "engine/engine_config.h"
#include "sim/perf/step_time_model.h"

namespace tidal::profile {

// Median seconds of one NgramDrafter::propose (spec's ngram_min..ngram_max, up to
// num_spec_tokens tokens) over a sequence of num_context_tokens tokens made as the engine makes
// trace prompts (engine::synthesize_prompt: pseudo-random ids, so the longer suffixes find no
// earlier occurrence and the lookup scans the whole context, the drafter's costly case).
double time_ngram_propose(const engine::SpecConfig& spec, int32_t num_spec_tokens,
                          int64_t vocab_size, int64_t num_context_tokens, int repeats);

// Drafting seconds over target step seconds for decode batches of every size in `batch_sizes`
// at every context in `contexts`: B x time_ngram_propose(context) over the step model's time for
// B sequences verifying 1 + num_spec_tokens tokens at that context. Returns the median ratio.
double ngram_draft_step_ratio(const engine::SpecConfig& spec, int32_t num_spec_tokens,
                              int64_t vocab_size, const perf::StepTimeModel& step_model,
                              std::span<const int64_t> batch_sizes,
                              std::span<const int64_t> contexts, int repeats);

}  // namespace tidal::profile
