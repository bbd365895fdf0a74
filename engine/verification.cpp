#include "engine/verification.h"

#include <algorithm>
#include <vector>

namespace tidal::engine {

void verify_greedy(const float* target_logits, int64_t vocab_size, std::span<const int32_t> drafts,
                   std::vector<int32_t>& out) {
  out.clear();
  for (size_t i = 0; i <= drafts.size(); ++i) {
    const int32_t target = kernels::argmax(target_logits + i * vocab_size, vocab_size);
    out.push_back(target);
    if (i == drafts.size() || drafts[i] != target) return;
  }
}

void residual_distribution(const float* p, const float* q, int64_t vocab_size, float* residual) {
  double total = 0.0;
  for (int64_t v = 0; v < vocab_size; ++v) {
    residual[v] = std::max(0.0f, p[v] - q[v]);
    total += residual[v];
  }
  if (total <= 0.0) {
    std::copy(p, p + vocab_size, residual);
    return;
  }
  for (int64_t v = 0; v < vocab_size; ++v) {
    residual[v] = static_cast<float>(residual[v] / total);
  }
}

void verify_stochastic(const float* target_probs, std::span<const float> draft_probs,
                       int64_t vocab_size, std::span<const int32_t> drafts,
                       kernels::SamplingRng& rng, std::vector<int32_t>& out) {
  out.clear();
  std::vector<float> one_hot;   // [vocab] q of a deterministic drafter
  std::vector<float> residual;  // [vocab]
  for (size_t i = 0; i < drafts.size(); ++i) {
    const float* p = target_probs + i * vocab_size;
    const float* q = nullptr;
    if (draft_probs.empty()) {
      one_hot.assign(static_cast<size_t>(vocab_size), 0.0f);
      one_hot[static_cast<size_t>(drafts[i])] = 1.0f;
      q = one_hot.data();
    } else {
      q = draft_probs.data() + i * vocab_size;
    }
    const int32_t d = drafts[i];
    // Accept with probability min(1, p(d) / q(d)): u * q(d) < p(d) for u uniform in [0, 1).
    if (rng.uniform() * static_cast<double>(q[d]) < static_cast<double>(p[d])) {
      out.push_back(d);
      continue;
    }
    residual.resize(static_cast<size_t>(vocab_size));
    residual_distribution(p, q, vocab_size, residual.data());
    out.push_back(kernels::sample_from_distribution(residual.data(), vocab_size, rng.uniform()));
    return;
  }
  const float* bonus = target_probs + drafts.size() * vocab_size;
  out.push_back(kernels::sample_from_distribution(bonus, vocab_size, rng.uniform()));
}

}  // namespace tidal::engine
