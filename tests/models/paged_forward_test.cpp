// The paged forward pass against the reference forward (the oracle), for dense, tied +
// Llama-3-scaled and MoE presets. Relative error bounds on logits (max |diff| / max |ref|):
//   paged fp32 vs reference:                          1e-4 (summation order of fp32 kernels)
//   bf16 KV vs fp32 KV: 2e-2;  int8 KV vs fp32 KV:    5e-2
//   Eigen GEMM path, chunked vs one-shot:             1e-5
// With the default (batch-invariant) CPU backend a token's logits are the same bits however
// the tokens are batched: chunked prefill, mixed batches, padding and thread counts are
// compared exactly.
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "kernels/cpu/cpu_backend.h"
#include "models/memory_footprint.h"
#include "models/paged_forward.h"
#include "models/presets.h"
#include "models/random_weights.h"
#include "models/reference_forward.h"
#include "tests/models/model_test_support.h"

namespace tidal::models {
namespace {

constexpr double kPagedVsReference = 1e-4;
constexpr double kEigenDifferentBatching = 1e-5;

class PagedForwardTest : public ::testing::TestWithParam<std::string> {
 protected:
  PagedForwardTest() : weights_(random_weights(*find_preset(GetParam()), 2024)) {}

  kernels::KvArena make_arena(kernels::KvDType dtype = kernels::KvDType::f32) const {
    return kernels::KvArena(kv_cache_spec(weights_, 64, 4, dtype));
  }

  int64_t vocab() const { return weights_.config.vocab_size; }

  ModelWeights weights_;
  SingleRankCommunicator comm_;
};

TEST_P(PagedForwardTest, PrefillMatchesReferenceAtEveryPosition) {
  std::mt19937_64 rng(1);
  const std::vector<int32_t> prompt = testing::random_tokens(rng, 37, vocab());
  ReferenceForward reference(weights_);
  const std::vector<float> expected = reference.run(prompt);

  kernels::cpu::CpuBackend backend(2);
  PagedModel model(weights_, backend, comm_);
  kernels::KvArena arena = make_arena();
  testing::PagedSequences seqs(64, 4, 3);
  ForwardBatch batch;
  batch.sequences.push_back(seqs.step(seqs.add_sequence(), prompt));
  batch.num_logit_rows = all_logit_rows(batch);
  const std::vector<float> logits = model.forward(batch, arena.view());
  ASSERT_EQ(logits.size(), expected.size());
  EXPECT_LT(testing::relative_error(logits, expected), kPagedVsReference);
  batch.num_logit_rows.clear();  // only the last row, on a fresh arena
  kernels::KvArena arena2 = make_arena();
  const std::vector<float> last = model.forward(batch, arena2.view());
  EXPECT_EQ(last, std::vector<float>(logits.end() - vocab(), logits.end()));
}

TEST_P(PagedForwardTest, DecodeAfterPrefillMatchesReference) {
  std::mt19937_64 rng(2);
  const std::vector<int32_t> tokens = testing::random_tokens(rng, 30, vocab());
  ReferenceForward reference(weights_);
  kernels::cpu::CpuBackend backend(3);
  PagedModel model(weights_, backend, comm_);
  kernels::KvArena arena = make_arena();
  testing::PagedSequences seqs(64, 4, 4);
  const int seq = seqs.add_sequence();
  const std::vector<int32_t> prompt(tokens.begin(), tokens.begin() + 20);
  ForwardBatch prefill;
  prefill.sequences.push_back(seqs.step(seq, prompt));
  std::vector<float> logits = model.forward(prefill, arena.view());
  std::vector<float> expected = reference.run(prompt);
  EXPECT_LT(
      testing::relative_error(logits.data(), expected.data() + expected.size() - vocab(), vocab()),
      kPagedVsReference);
  // All 30 tokens in one step: what a speculative verifier sees.
  kernels::KvArena verify_arena = make_arena();
  testing::PagedSequences verify_seqs(64, 4, 5);
  ForwardBatch verify;
  verify.sequences.push_back(verify_seqs.step(verify_seqs.add_sequence(), tokens));
  verify.num_logit_rows = all_logit_rows(verify);
  const std::vector<float> all_logits = model.forward(verify, verify_arena.view());
  for (size_t i = 20; i < tokens.size(); ++i) {  // decode one token at a time
    ForwardBatch decode;
    decode.sequences.push_back(seqs.step(seq, {tokens[i]}));
    logits = model.forward(decode, arena.view());
    expected = reference.step(tokens[i]);
    EXPECT_LT(testing::relative_error(logits, expected), kPagedVsReference) << "token " << i;
    EXPECT_EQ(logits, std::vector<float>(all_logits.begin() + i * vocab(),
                                         all_logits.begin() + (i + 1) * vocab()))
        << "token " << i;
  }
}

// Logits of a 41-token prompt prefilled in one step, then in chunks 16 + 9 + 1 + 15.
std::pair<std::vector<float>, std::vector<float>> one_shot_and_chunked(const ModelWeights& weights,
                                                                       kernels::Backend& backend) {
  SingleRankCommunicator comm;
  PagedModel model(weights, backend, comm);
  std::mt19937_64 rng(3);
  const std::vector<int32_t> prompt = testing::random_tokens(rng, 41, weights.config.vocab_size);
  const auto make_arena = [&] {
    return kernels::KvArena(kv_cache_spec(weights, 64, 4, kernels::KvDType::f32));
  };

  kernels::KvArena one_shot_arena = make_arena();
  testing::PagedSequences one_shot_seqs(64, 4, 5);
  ForwardBatch one_shot;
  one_shot.sequences.push_back(one_shot_seqs.step(one_shot_seqs.add_sequence(), prompt));
  one_shot.num_logit_rows = all_logit_rows(one_shot);
  const std::vector<float> expected = model.forward(one_shot, one_shot_arena.view());

  kernels::KvArena arena = make_arena();
  testing::PagedSequences seqs(64, 4, 6);  // other random blocks
  const int seq = seqs.add_sequence();
  std::vector<float> chunked;
  for (auto [first, count] : {std::pair<int, int>{0, 16}, {16, 9}, {25, 1}, {26, 15}}) {
    ForwardBatch chunk;
    chunk.sequences.push_back(seqs.step(
        seq, std::vector<int32_t>(prompt.begin() + first, prompt.begin() + first + count)));
    chunk.num_logit_rows = all_logit_rows(chunk);
    const std::vector<float> logits = model.forward(chunk, arena.view());
    chunked.insert(chunked.end(), logits.begin(), logits.end());
  }
  return {expected, chunked};
}

TEST_P(PagedForwardTest, ChunkedPrefillEqualsOneShot) {
  kernels::cpu::CpuBackend backend(2);
  const auto [one_shot, chunked] = one_shot_and_chunked(weights_, backend);
  EXPECT_EQ(chunked, one_shot);
  kernels::cpu::CpuBackend eigen(2, kernels::cpu::GemmPath::eigen);
  const auto [eigen_one_shot, eigen_chunked] = one_shot_and_chunked(weights_, eigen);
  EXPECT_LT(testing::relative_error(eigen_chunked, eigen_one_shot), kEigenDifferentBatching);
  EXPECT_LT(testing::relative_error(eigen_one_shot, one_shot), kPagedVsReference);
}

TEST_P(PagedForwardTest, MixedBatchEqualsEachSequenceAlone) {
  std::mt19937_64 rng(4);
  kernels::cpu::CpuBackend backend(2);
  PagedModel model(weights_, backend, comm_);
  // Three sequences: a prefill, a decode after a 12-token prefix, a chunk after a 5-token prefix.
  const std::vector<std::vector<int32_t>> prefixes = {
      {}, testing::random_tokens(rng, 12, vocab()), testing::random_tokens(rng, 5, vocab())};
  const std::vector<std::vector<int32_t>> news = {testing::random_tokens(rng, 9, vocab()),
                                                  testing::random_tokens(rng, 1, vocab()),
                                                  testing::random_tokens(rng, 6, vocab())};
  std::vector<float> alone;
  for (size_t s = 0; s < 3; ++s) {
    kernels::KvArena arena = make_arena();
    testing::PagedSequences seqs(64, 4, 10 + s);
    const int seq = seqs.add_sequence();
    if (!prefixes[s].empty()) {
      ForwardBatch prefix;
      prefix.sequences.push_back(seqs.step(seq, prefixes[s]));
      model.forward(prefix, arena.view());
    }
    ForwardBatch step;
    step.sequences.push_back(seqs.step(seq, news[s]));
    const std::vector<float> logits = model.forward(step, arena.view());
    alone.insert(alone.end(), logits.begin(), logits.end());
  }
  kernels::KvArena arena = make_arena();
  testing::PagedSequences seqs(64, 4, 20);
  ForwardBatch step;
  for (size_t s = 0; s < 3; ++s) {
    const int seq = seqs.add_sequence();
    if (!prefixes[s].empty()) {
      ForwardBatch prefix;
      prefix.sequences.push_back(seqs.step(seq, prefixes[s]));
      model.forward(prefix, arena.view());
    }
    step.sequences.push_back(seqs.step(seq, news[s]));
  }
  const std::vector<float> batched = model.forward(step, arena.view());
  ASSERT_EQ(batched.size(), 3u * vocab());
  EXPECT_EQ(batched, alone);
}

TEST_P(PagedForwardTest, SameBytesAtEveryThreadCountAndReferenceBackendAgrees) {
  std::mt19937_64 rng(5);
  const std::vector<int32_t> prompt = testing::random_tokens(rng, 19, vocab());
  std::vector<std::vector<float>> results;
  kernels::cpu::CpuBackend one(1), three(3);
  kernels::cpu::ReferenceBackend plain;
  for (kernels::Backend* backend : std::vector<kernels::Backend*>{&one, &three, &plain}) {
    PagedModel model(weights_, *backend, comm_);
    kernels::KvArena arena = make_arena();
    testing::PagedSequences seqs(64, 4, 7);
    ForwardBatch batch;
    batch.sequences.push_back(seqs.step(seqs.add_sequence(), prompt));
    batch.num_logit_rows = all_logit_rows(batch);
    results.push_back(model.forward(batch, arena.view()));
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_LT(testing::relative_error(results[0], results[2]), kPagedVsReference);
}

TEST_P(PagedForwardTest, QuantizedKvStaysCloseToF32) {
  std::mt19937_64 rng(6);
  const std::vector<int32_t> prompt = testing::random_tokens(rng, 25, vocab());
  kernels::cpu::CpuBackend backend(2);
  PagedModel model(weights_, backend, comm_);
  std::vector<std::vector<float>> results;
  for (kernels::KvDType dtype :
       {kernels::KvDType::f32, kernels::KvDType::bf16, kernels::KvDType::int8}) {
    kernels::KvArena arena = make_arena(dtype);
    testing::PagedSequences seqs(64, 4, 8);
    ForwardBatch batch;
    batch.sequences.push_back(seqs.step(seqs.add_sequence(), prompt));
    batch.num_logit_rows = all_logit_rows(batch);
    results.push_back(model.forward(batch, arena.view()));
  }
  EXPECT_LT(testing::relative_error(results[1], results[0]), 2e-2);
  EXPECT_LT(testing::relative_error(results[2], results[0]), 5e-2);
}

TEST_P(PagedForwardTest, PaddingTokensChangeNothing) {
  std::mt19937_64 rng(7);
  const std::vector<int32_t> prompt = testing::random_tokens(rng, 10, vocab());
  kernels::cpu::CpuBackend backend(2);
  PagedModel model(weights_, backend, comm_);
  kernels::KvArena arena = make_arena();
  testing::PagedSequences seqs(64, 4, 9);
  ForwardBatch batch;
  batch.sequences.push_back(seqs.step(seqs.add_sequence(), prompt));
  batch.num_logit_rows = all_logit_rows(batch);
  const std::vector<float> expected = model.forward(batch, arena.view());
  SequenceInput padded = batch.sequences[0];
  padded.token_ids.push_back(0);
  padded.positions.push_back(padded.positions.back());
  padded.slot_mapping.push_back(-1);
  ForwardBatch with_padding;
  with_padding.sequences.push_back(padded);
  with_padding.num_logit_rows = all_logit_rows(with_padding);
  kernels::KvArena arena2 = make_arena();
  const std::vector<float> logits = model.forward(with_padding, arena2.view());
  EXPECT_EQ(std::vector<float>(logits.begin(), logits.begin() + expected.size()), expected);
}

// A step mixing a prefill chunk nobody samples (0 rows), a verifying sequence (1 + 3 rows), a
// decode (1 row) and a prompt's last chunk (1 row): the LM head runs on those 6 rows only and
// returns exactly the bits of the same rows of the all-rows forward.
TEST_P(PagedForwardTest, LogitRowsAreTheSelectedRowsOfTheAllRowsForward) {
  std::mt19937_64 rng(8);
  std::vector<std::vector<int32_t>> histories;  // [4] tokens cached before the step
  std::vector<std::vector<int32_t>> news;       // [4] the step's new tokens
  for (auto [num_cached, num_new] : {std::pair<int, int>{0, 9}, {6, 4}, {11, 1}, {5, 7}}) {
    histories.push_back(testing::random_tokens(rng, num_cached, vocab()));
    news.push_back(testing::random_tokens(rng, num_new, vocab()));
  }
  kernels::cpu::CpuBackend backend(2);
  PagedModel model(weights_, backend, comm_);
  const auto run = [&](const std::vector<int32_t>& num_logit_rows) {
    kernels::KvArena arena = make_arena();
    testing::PagedSequences seqs(64, 4, 10);
    ForwardBatch history;
    std::vector<int> ids;
    for (const std::vector<int32_t>& tokens : histories) {
      ids.push_back(seqs.add_sequence());
      if (!tokens.empty()) history.sequences.push_back(seqs.step(ids.back(), tokens));
    }
    model.forward(history, arena.view());
    ForwardBatch step;
    for (size_t i = 0; i < news.size(); ++i) step.sequences.push_back(seqs.step(ids[i], news[i]));
    step.num_logit_rows = num_logit_rows.empty() ? all_logit_rows(step) : num_logit_rows;
    return model.forward(step, arena.view());
  };
  const std::vector<float> all_rows = run({});  // [9 + 4 + 1 + 7, vocab]
  const std::vector<float> selected = run({0, 4, 1, 1});
  const auto row = [&](int r) {
    return std::vector<float>(all_rows.begin() + r * vocab(), all_rows.begin() + (r + 1) * vocab());
  };
  std::vector<float> expected;
  for (int r : {9, 10, 11, 12, 13, 20}) {
    const std::vector<float> wanted = row(r);
    expected.insert(expected.end(), wanted.begin(), wanted.end());
  }
  EXPECT_EQ(selected, expected);
  EXPECT_TRUE(run({0, 0, 0, 0}).empty());
}

TEST_P(PagedForwardTest, BadLogitRowsAreInvalidArguments) {
  kernels::cpu::CpuBackend backend(1);
  PagedModel model(weights_, backend, comm_);
  kernels::KvArena arena = make_arena();
  ForwardBatch batch;
  batch.sequences.push_back({{1, 2}, {0, 1}, {0, 1}, {0}});
  batch.num_logit_rows = {1, 1};  // two entries for one sequence
  EXPECT_THROW(model.forward(batch, arena.view()), std::invalid_argument);
  batch.num_logit_rows = {3};  // more rows than new tokens
  EXPECT_THROW(model.forward(batch, arena.view()), std::invalid_argument);
  batch.num_logit_rows = {-1};
  EXPECT_THROW(model.forward(batch, arena.view()), std::invalid_argument);
}

TEST_P(PagedForwardTest, BadTokensAndPositionsAreInputErrors) {
  kernels::cpu::CpuBackend backend(1);
  PagedModel model(weights_, backend, comm_);
  kernels::KvArena arena = make_arena();
  ForwardBatch batch;
  batch.sequences.push_back({{static_cast<int32_t>(vocab())}, {0}, {0}, {0}});
  try {
    model.forward(batch, arena.view());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "forward batch: sequence 0: token_ids[0]: " + std::to_string(vocab()) +
                  " is outside the vocabulary (" + std::to_string(vocab()) + ")");
  }
  const int32_t too_far = static_cast<int32_t>(weights_.config.max_position_embeddings);
  batch.sequences[0] = {{1}, {too_far}, {0}, {0}};
  EXPECT_THROW(model.forward(batch, arena.view()), InputError);
  batch.sequences[0] = {{1}, {9}, {0}, {0}};  // position 9 needs block index 2
  EXPECT_THROW(model.forward(batch, arena.view()), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Presets, PagedForwardTest, testing::preset_params(),
                         testing::preset_test_name);

}  // namespace
}  // namespace tidal::models
