// Grouped-query attention's work is priced from the batch's summed tokens, pairs and cached reads
// (roofline_attention.cpp). Those sums are whole numbers, so the batch's work must equal, to the
// last bit, each sequence priced alone and added up, whatever the order, the dtype or the window.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "perf/roofline_attention.h"

namespace tidal::perf {
namespace {

AttentionShape gqa_shape(double kv_bytes, int64_t window) {
  AttentionShape s;
  s.num_heads = 8;  // Llama-3-70B's 64 query and 8 KV heads on TP 8
  s.num_kv_heads = 1;
  s.head_dim = 128;
  s.kv_bytes = kv_bytes;
  s.window = window;
  return s;
}

// Fixed-seed batch of prefill chunks, decodes and speculative verifications.
std::vector<SeqWork> mixed_batch(uint32_t seed, int num_seqs) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> context(0, 200'000);
  std::uniform_int_distribution<int64_t> chunk(2, 8192);
  std::uniform_int_distribution<int> kind(0, 3);
  std::vector<SeqWork> batch;  // [num_seqs]
  for (int i = 0; i < num_seqs; ++i) {
    SeqWork seq;
    seq.num_context_tokens = context(rng);
    switch (kind(rng)) {
      case 0:  // a prefill chunk
        seq.num_new_tokens = chunk(rng);
        break;
      case 1:  // a verification of 3 drafts
        seq.num_new_tokens = 4;
        seq.num_logit_rows = 4;
        break;
      case 2:  // sat out
        seq.num_new_tokens = 0;
        break;
      default:  // a decode
        seq.num_new_tokens = 1;
    }
    batch.push_back(seq);
  }
  return batch;
}

TEST(GqaAttentionSums, BatchEqualsItsSequencesPricedAloneBitForBit) {
  for (const double kv_bytes : {2.0, 1.0, 0.5}) {
    for (const int64_t window : {int64_t{0}, int64_t{128}, int64_t{4096}}) {
      const AttentionShape shape = gqa_shape(kv_bytes, window);
      const std::vector<SeqWork> batch = mixed_batch(7, 256);
      const AttentionWork whole = attention_work(shape, batch);
      AttentionWork forward, backward;
      for (const SeqWork& seq : batch) {
        const AttentionWork one = attention_work(shape, {&seq, 1});
        forward.prefill += one.prefill;
        forward.decode += one.decode;
      }
      for (auto it = batch.rbegin(); it != batch.rend(); ++it) {
        const AttentionWork one = attention_work(shape, {&*it, 1});
        backward.prefill += one.prefill;
        backward.decode += one.decode;
      }
      for (const AttentionWork* sum : {&forward, &backward}) {
        EXPECT_EQ(whole.prefill.flops, sum->prefill.flops) << kv_bytes << " " << window;
        EXPECT_EQ(whole.prefill.bytes, sum->prefill.bytes) << kv_bytes << " " << window;
        EXPECT_EQ(whole.decode.flops, sum->decode.flops) << kv_bytes << " " << window;
        EXPECT_EQ(whole.decode.bytes, sum->decode.bytes) << kv_bytes << " " << window;
      }
      EXPECT_GT(whole.prefill.flops, 0.0);
      EXPECT_GT(whole.decode.flops, 0.0);
    }
  }
}

TEST(GqaAttentionSums, OneDecodeIsTheTextbookCount) {
  const AttentionShape shape = gqa_shape(2.0, 0);
  const SeqWork decode{1, 1000, 1};
  const AttentionWork work = attention_work(shape, {&decode, 1});
  const double q_width = 8 * 128;
  const double kv_width = 2 * 1 * 128;
  // 1,001 keys; q read and output written (bf16); the cache read plus the new token's K and V
  // written and read.
  EXPECT_EQ(work.decode.flops, 4.0 * q_width * 1001);
  EXPECT_EQ(work.decode.bytes, 2.0 * q_width * 2.0 + (1000 + 2.0) * kv_width * 2.0);
  EXPECT_EQ(work.prefill.flops, 0.0);
  EXPECT_EQ(work.prefill.bytes, 0.0);
}

}  // namespace
}  // namespace tidal::perf
