// Rotary position embedding frequencies, Hugging Face Llama convention ("rotate half": dim i
// pairs with dim i + head_dim/2), with the optional Llama-3 frequency scaling.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace tidal::kernels {

struct Llama3RopeScaling {
  double factor = 8.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  int64_t original_max_position_embeddings = 8192;

  bool operator==(const Llama3RopeScaling&) const = default;
};

// inv_freq[i] = theta^(-2i/head_dim), then Llama-3 scaled when `scaling` is set: [head_dim / 2]
std::vector<float> rope_inv_freq(int64_t head_dim, double theta,
                                 const std::optional<Llama3RopeScaling>& scaling);

}  // namespace tidal::kernels
