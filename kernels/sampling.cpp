#include "kernels/sampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace tidal::kernels {

double SamplingRng::uniform() {
  return static_cast<double>(engine_() >> 11) * 0x1.0p-53;
}

int32_t argmax(const float* logits, int64_t vocab_size) {
  int64_t best = 0;
  for (int64_t i = 1; i < vocab_size; ++i) {
    if (logits[i] > logits[best]) best = i;
  }
  return static_cast<int32_t>(best);
}

void sampling_distribution(const float* logits, int64_t vocab_size, const SamplingParams& params,
                           float* probs) {
  if (!(params.temperature >= 0.0f) || params.top_k < 0 || !(params.top_p > 0.0f) ||
      params.top_p > 1.0f || vocab_size <= 0) {
    throw std::invalid_argument(
        "sampling: need temperature >= 0, top_k >= 0, 0 < top_p <= 1, vocab_size > 0");
  }
  std::fill(probs, probs + vocab_size, 0.0f);
  if (params.temperature == 0.0f) {
    probs[argmax(logits, vocab_size)] = 1.0f;
    return;
  }
  // Candidates by descending logit, ties to the lower index.
  const int64_t num_kept = params.top_k > 0 ? std::min(params.top_k, vocab_size) : vocab_size;
  std::vector<int32_t> order(vocab_size);  // [vocab_size]
  std::iota(order.begin(), order.end(), 0);
  const auto before = [logits](int32_t a, int32_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  };
  std::partial_sort(order.begin(), order.begin() + num_kept, order.end(), before);

  const double max_logit = logits[order[0]];
  std::vector<double> weights(num_kept);  // [num_kept] unnormalized, in candidate order
  double total = 0.0;
  for (int64_t i = 0; i < num_kept; ++i) {
    weights[i] = std::exp((logits[order[i]] - max_logit) / params.temperature);
    total += weights[i];
  }
  // Nucleus: the shortest prefix whose mass reaches top_p (at least one token).
  int64_t num_nucleus = num_kept;
  if (params.top_p < 1.0f) {
    double mass = 0.0;
    for (int64_t i = 0; i < num_kept; ++i) {
      mass += weights[i];
      if (mass >= static_cast<double>(params.top_p) * total) {
        num_nucleus = i + 1;
        break;
      }
    }
  }
  double nucleus_total = 0.0;
  for (int64_t i = 0; i < num_nucleus; ++i) nucleus_total += weights[i];
  for (int64_t i = 0; i < num_nucleus; ++i) {
    probs[order[i]] = static_cast<float>(weights[i] / nucleus_total);
  }
}

int32_t sample_from_distribution(const float* probs, int64_t vocab_size, double u) {
  double total = 0.0;
  for (int64_t i = 0; i < vocab_size; ++i) total += probs[i];
  const double target = u * total;
  double running = 0.0;
  int64_t last_nonzero = -1;
  for (int64_t i = 0; i < vocab_size; ++i) {
    if (probs[i] <= 0.0f) continue;
    running += probs[i];
    last_nonzero = i;
    if (running > target) return static_cast<int32_t>(i);
  }
  if (last_nonzero < 0) throw std::invalid_argument("sample_from_distribution: all zero");
  return static_cast<int32_t>(last_nonzero);
}

int32_t sample(const float* logits, int64_t vocab_size, const SamplingParams& params,
               SamplingRng& rng) {
  if (params.temperature == 0.0f) return argmax(logits, vocab_size);
  std::vector<float> probs(vocab_size);  // [vocab_size]
  sampling_distribution(logits, vocab_size, params, probs.data());
  return sample_from_distribution(probs.data(), vocab_size, rng.uniform());
}

}  // namespace tidal::kernels
