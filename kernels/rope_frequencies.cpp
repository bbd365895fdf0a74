#include "kernels/rope_frequencies.h"

#include <cmath>
#include <numbers>

namespace tidal::kernels {

std::vector<float> rope_inv_freq(int64_t head_dim, double theta,
                                 const std::optional<Llama3RopeScaling>& scaling) {
  const int64_t half = head_dim / 2;
  std::vector<float> inv_freq(half);  // [head_dim / 2]
  for (int64_t i = 0; i < half; ++i) {
    // Like Hugging Face: the base frequencies are fp32 before any scaling.
    const float base = static_cast<float>(
        1.0 / std::pow(theta, static_cast<double>(2 * i) / static_cast<double>(head_dim)));
    double freq = base;
    if (scaling) {
      // Llama 3: long wavelengths are divided by factor, short ones kept, and the band in
      // between is interpolated smoothly.
      const double old_context = static_cast<double>(scaling->original_max_position_embeddings);
      const double low_freq_wavelen = old_context / scaling->low_freq_factor;
      const double high_freq_wavelen = old_context / scaling->high_freq_factor;
      const double wavelen = 2.0 * std::numbers::pi / freq;
      if (wavelen > low_freq_wavelen) {
        freq = freq / scaling->factor;
      } else if (wavelen >= high_freq_wavelen) {
        const double smooth = (old_context / wavelen - scaling->low_freq_factor) /
                              (scaling->high_freq_factor - scaling->low_freq_factor);
        freq = (1.0 - smooth) * freq / scaling->factor + smooth * freq;
      }
    }
    inv_freq[i] = static_cast<float>(freq);
  }
  return inv_freq;
}

}  // namespace tidal::kernels
