// Token sampling on the host: argmax, temperature, top-k, top-p, with a seeded RNG whose
// uniform draws are specified here (53 high bits of std::mt19937_64), so a seed gives the same
// tokens on every standard library.
#pragma once

#include <cstdint>
#include <random>

namespace tidal::kernels {

struct SamplingParams {
  float temperature = 1.0f;  // 0 = greedy (argmax)
  int64_t top_k = 0;         // 0 = no top-k cut
  float top_p = 1.0f;        // in (0, 1]; 1 = no nucleus cut
};

class SamplingRng {
 public:
  explicit SamplingRng(uint64_t seed) : engine_(seed) {}
  double uniform();  // in [0, 1)

 private:
  std::mt19937_64 engine_;
};

// Index of the largest logit; ties go to the lowest index.
int32_t argmax(const float* logits, int64_t vocab_size);

// The distribution sample() draws from, [vocab_size]: softmax(logits / temperature) restricted
// to the top_k largest logits (ties broken by lower index) and then to the smallest
// highest-probability prefix whose mass reaches top_p, renormalized; zero elsewhere.
// temperature 0 gives a one-hot at argmax.
void sampling_distribution(const float* logits, int64_t vocab_size, const SamplingParams& params,
                           float* probs);

// Inverse-CDF draw: the first index whose running sum of probs exceeds u * sum(probs); never an
// index with zero probability.
int32_t sample_from_distribution(const float* probs, int64_t vocab_size, double u);

int32_t sample(const float* logits, int64_t vocab_size, const SamplingParams& params,
               SamplingRng& rng);

}  // namespace tidal::kernels
