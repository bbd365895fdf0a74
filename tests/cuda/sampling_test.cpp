// Device argmax and temperature / top-k / top-p sampling against kernels::sampling_distribution
// and sample_from_distribution with the same uniform draws, including heavy ties.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/sampling.h"
#include "tests/cuda/cuda_test_util.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels::cuda {
namespace {

using kernels::testing::random_values;
using testing::to_device;
using testing::to_host;

class CudaSampling : public ::testing::Test {
 protected:
  void SetUp() override {
    TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
    backend_ = std::make_unique<CudaBackend>(0);
  }
  // Tokens of the reference and of the device for the same logits and uniforms.
  void expect_same_tokens(const std::vector<float>& logits, int64_t num_rows, int64_t vocab,
                          const SamplingParams& params) {
    SamplingRng rng(99);
    std::vector<double> uniforms(num_rows);
    std::vector<int32_t> expected(num_rows);
    std::vector<float> probs(vocab);
    for (int64_t r = 0; r < num_rows; ++r) {
      uniforms[r] = rng.uniform();
      sampling_distribution(logits.data() + r * vocab, vocab, params, probs.data());
      expected[r] = params.temperature == 0.0f
                        ? argmax(logits.data() + r * vocab, vocab)
                        : sample_from_distribution(probs.data(), vocab, uniforms[r]);
    }
    auto d_logits = to_device(logits);
    auto d_uniforms = to_device(uniforms);
    DeviceBuffer<int32_t> d_out(num_rows);
    backend_->sample(d_logits.data(), num_rows, vocab, params, d_uniforms.data(), d_out.data());
    EXPECT_EQ(to_host(*backend_, d_out), expected)
        << "temperature " << params.temperature << " top_k " << params.top_k << " top_p "
        << params.top_p;
  }
  std::unique_ptr<CudaBackend> backend_;
  std::mt19937_64 rng_{31337};
};

const std::vector<SamplingParams> kParams = {
    {0.0f, 0, 1.0f},  {1.0f, 0, 1.0f}, {0.7f, 50, 1.0f}, {1.0f, 0, 0.9f},
    {0.8f, 40, 0.5f}, {1.3f, 1, 1.0f}, {1.0f, 0, 0.01f},
};

TEST_F(CudaSampling, MatchesReferenceOnRandomLogits) {
  const int64_t rows = 24, vocab = 32000;
  const auto logits = random_values(rng_, rows * vocab, 6.0f);
  for (const auto& params : kParams) expect_same_tokens(logits, rows, vocab, params);
}

TEST_F(CudaSampling, MatchesReferenceWithTiesAndSmallVocab) {
  const int64_t rows = 40, vocab = 1000;
  auto logits = random_values(rng_, rows * vocab, 3.0f);
  for (float& x : logits) x = std::round(x * 4.0f) / 4.0f;  // many exact ties
  for (const auto& params : kParams) expect_same_tokens(logits, rows, vocab, params);
}

// The radix-select thresholds over a Llama-3 vocabulary: wide logits (a small nucleus) and
// narrow ones (a nucleus of tens of thousands of tokens), top-k alone and with top-p.
TEST_F(CudaSampling, MatchesReferenceOverA128kVocabulary) {
  const int64_t rows = 6, vocab = 128256;
  for (const float scale : {12.0f, 1.0f}) {
    const auto logits = random_values(rng_, rows * vocab, scale);
    for (const auto& params : kParams) expect_same_tokens(logits, rows, vocab, params);
    expect_same_tokens(logits, rows, vocab, {1.0f, 2000, 0.95f});
  }
}

TEST_F(CudaSampling, ArgmaxTiesGoToLowestIndex) {
  const int64_t rows = 3, vocab = 5000;
  auto logits = random_values(rng_, rows * vocab);
  logits[0 * vocab + 17] = 5.0f;
  logits[0 * vocab + 4000] = 5.0f;
  logits[1 * vocab + 4999] = 7.0f;
  logits[2 * vocab + 0] = 2.0f;
  logits[2 * vocab + 1] = 2.0f;
  auto d_logits = to_device(logits);
  DeviceBuffer<int32_t> d_out(rows);
  backend_->argmax(d_logits.data(), rows, vocab, d_out.data());
  EXPECT_EQ(to_host(*backend_, d_out), (std::vector<int32_t>{17, 4999, 0}));
}

}  // namespace
}  // namespace tidal::kernels::cuda
