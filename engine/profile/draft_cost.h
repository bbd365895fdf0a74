// The cost of n-gram drafting (engine::NgramDrafter, prompt lookup). The engine drafts on the
// host before every step: one propose() per sequence it has already scheduled, over all its known
// tokens, whether or not a proposal is found. The simulator charges that per sequence and step
// (docs/scenario.md, `draft_seconds_per_seq`, `draft_seconds_per_context_token`).
#pragma once

#include <cstdint>
#include <span>

#include "engine/engine_config.h"
#include "perf/step_time_model.h"

namespace tidal::profile {

// Median seconds of one NgramDrafter::propose (spec's ngram_min..ngram_max, up to
// num_spec_tokens tokens) over a sequence of num_context_tokens tokens made as the engine makes
// trace prompts (engine::synthesize_prompt: pseudo-random ids, so the longer suffixes find no
// earlier occurrence and the lookup scans the whole context, the drafter's costly case).
double time_ngram_propose(const engine::SpecConfig& spec, int32_t num_spec_tokens,
                          int64_t vocab_size, int64_t num_context_tokens, int repeats);

// One propose() as seconds_per_seq + seconds_per_context_token x context: time_ngram_propose at
// every context in `contexts`, fitted by fit_nonnegative_line.
struct NgramProposeCost {
  double seconds_per_seq = 0.0;
  double seconds_per_context_token = 0.0;
};
NgramProposeCost fit_ngram_propose(const engine::SpecConfig& spec, int32_t num_spec_tokens,
                                   int64_t vocab_size, std::span<const int64_t> contexts,
                                   int repeats);

}  // namespace tidal::profile
