// Verifying k draft tokens against the target's distributions from ONE target step. Row i of
// the target rows is the target's prediction after the sequence's last known token and drafts
// 1..i (so row 0 judges draft 0, row k is the bonus position).
//
// Greedy: draft i is accepted while it equals argmax(target row i); the first mismatch emits the
// target's argmax instead and stops; if all k match, argmax(row k) is emitted too. The emitted
// tokens are exactly those plain greedy decoding produces from the same logits.
//
// Stochastic (speculative sampling): draft i, drawn from the draft distribution q_i, is accepted
// with probability min(1, p_i(d) / q_i(d)); on rejection a token is drawn from the residual
// normalize(max(0, p_i - q_i)) and the step stops; if all k are accepted, a bonus token is drawn
// from p_k. Every emitted token is distributed exactly as a token sampled from p.
// Deterministic drafters (n-gram) have one-hot q: acceptance probability p_i(d).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/sampling.h"

namespace tidal::engine {

// target_logits: [drafts.size() + 1, vocab]. Replaces `out` with the emitted tokens
// (1 .. drafts.size() + 1 of them): the accepted drafts followed by one target token.
void verify_greedy(const float* target_logits, int64_t vocab_size, std::span<const int32_t> drafts,
                   std::vector<int32_t>& out);

// target_probs: [drafts.size() + 1, vocab]; draft_probs: [drafts.size(), vocab], or empty for a
// deterministic drafter (one-hot q at each draft). Replaces `out` as verify_greedy does.
void verify_stochastic(const float* target_probs, std::span<const float> draft_probs,
                       int64_t vocab_size, std::span<const int32_t> drafts,
                       kernels::SamplingRng& rng, std::vector<int32_t>& out);

// The residual distribution after rejecting a draft: normalize(max(0, p - q)) into `residual`
// ([vocab]); falls back to p when p <= q everywhere (then no draft is ever rejected).
void residual_distribution(const float* p, const float* q, int64_t vocab_size, float* residual);

}  // namespace tidal::engine
