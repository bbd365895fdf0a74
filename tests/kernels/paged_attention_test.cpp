// Paged attention: reference paged vs contiguous attention (random block tables, prefill
// chunks over a cached prefix, decode, GQA), optimized vs reference paged per KV dtype.
// Relative error bounds: paged vs contiguous in fp32 1e-5; optimized vs reference on the same
// arena 1e-5 for every dtype; bf16 arena vs fp32 contiguous 2e-2; int8 arena vs fp32 3e-2.
#include <algorithm>
#include <numeric>

#include <gtest/gtest.h>

#include "kernels/cpu/kv_write.h"
#include "kernels/cpu/paged_attention.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels {
namespace {

struct SeqCase {
  int64_t context_len;  // cached tokens after this step
  int64_t num_new;      // query tokens this step (the last num_new positions)
};

// A random batch: every sequence's full K/V written through a shuffled block table.
struct Scenario {
  KvCacheSpec spec;
  int64_t num_heads;
  std::vector<SeqCase> seqs;
  std::vector<std::vector<float>> k, v;  // per sequence [context_len, num_kv_heads, head_dim]
  std::vector<float> q;                  // [num_tokens, num_heads, head_dim]
  std::vector<int32_t> query_start_loc, positions, block_tables;
  std::vector<int64_t> slot_mapping;
  int64_t max_blocks_per_seq = 0;

  AttentionBatch batch() const {
    AttentionBatch b;
    b.num_seqs = static_cast<int64_t>(seqs.size());
    b.num_tokens = static_cast<int64_t>(positions.size());
    b.query_start_loc = query_start_loc.data();
    b.positions = positions.data();
    b.slot_mapping = slot_mapping.data();
    b.block_tables = block_tables.data();
    b.max_blocks_per_seq = max_blocks_per_seq;
    b.num_heads = num_heads;
    b.num_kv_heads = spec.num_kv_heads;
    b.head_dim = spec.head_dim;
    return b;
  }
};

Scenario make_scenario(std::mt19937_64& rng, KvDType dtype, const std::vector<SeqCase>& seqs) {
  Scenario s;
  s.seqs = seqs;
  s.spec.num_layers = 2;
  s.spec.block_size = testing::uniform_int(rng, 1, 8);
  s.spec.num_kv_heads = testing::uniform_int(rng, 1, 3);
  s.num_heads = s.spec.num_kv_heads * testing::uniform_int(rng, 1, 4);
  s.spec.head_dim = testing::uniform_int(rng, 1, 40);
  s.spec.dtype = dtype;
  for (const SeqCase& c : seqs) {
    s.max_blocks_per_seq =
        std::max(s.max_blocks_per_seq, (c.context_len + s.spec.block_size - 1) / s.spec.block_size);
  }
  s.max_blocks_per_seq += 1;  // room left unused on purpose
  s.spec.num_blocks = s.max_blocks_per_seq * static_cast<int64_t>(seqs.size()) + 3;
  std::vector<int32_t> free_blocks(s.spec.num_blocks);
  std::iota(free_blocks.begin(), free_blocks.end(), 0);
  std::shuffle(free_blocks.begin(), free_blocks.end(), rng);
  s.block_tables.assign(seqs.size() * s.max_blocks_per_seq, -1);
  int64_t next_free = 0;
  s.query_start_loc.push_back(0);
  const int64_t row = s.spec.num_kv_heads * s.spec.head_dim;
  for (size_t i = 0; i < seqs.size(); ++i) {
    const int64_t num_blocks = (seqs[i].context_len + s.spec.block_size - 1) / s.spec.block_size;
    for (int64_t b = 0; b < num_blocks; ++b) {
      s.block_tables[i * s.max_blocks_per_seq + b] = free_blocks[next_free++];
    }
    s.k.push_back(testing::random_values(rng, seqs[i].context_len * row, 2.0f));
    s.v.push_back(testing::random_values(rng, seqs[i].context_len * row));
    for (int64_t j = 0; j < seqs[i].num_new; ++j) {
      s.positions.push_back(static_cast<int32_t>(seqs[i].context_len - seqs[i].num_new + j));
    }
    s.query_start_loc.push_back(static_cast<int32_t>(s.positions.size()));
  }
  s.q = testing::random_values(
      rng, static_cast<int64_t>(s.positions.size()) * s.num_heads * s.spec.head_dim);
  return s;
}

// Writes every cached token of every sequence (prefix and new) into layer 1 of the arena and
// fills slot_mapping for the new tokens.
void fill_arena(Scenario& s, const KvCacheView& view) {
  s.slot_mapping.clear();
  for (size_t i = 0; i < s.seqs.size(); ++i) {
    std::vector<int64_t> slots(s.seqs[i].context_len);
    for (int64_t p = 0; p < s.seqs[i].context_len; ++p) {
      slots[p] =
          static_cast<int64_t>(s.block_tables[i * s.max_blocks_per_seq + p / s.spec.block_size]) *
              s.spec.block_size +
          p % s.spec.block_size;
    }
    reference::write_kv(view, 1, s.k[i].data(), s.v[i].data(), slots.data(), s.seqs[i].context_len);
    s.slot_mapping.insert(s.slot_mapping.end(), slots.end() - s.seqs[i].num_new, slots.end());
  }
}

std::vector<float> contiguous(const Scenario& s) {
  const int64_t d = s.spec.head_dim;
  std::vector<float> out(s.q.size());
  for (size_t i = 0; i < s.seqs.size(); ++i) {
    const int64_t first = s.query_start_loc[i];
    reference::contiguous_attention(s.q.data() + first * s.num_heads * d, s.k[i].data(),
                                    s.v[i].data(), s.seqs[i].num_new, s.seqs[i].context_len,
                                    s.num_heads, s.spec.num_kv_heads, d, 0.37f,
                                    out.data() + first * s.num_heads * d);
  }
  return out;
}

std::vector<SeqCase> random_seqs(std::mt19937_64& rng) {
  std::vector<SeqCase> seqs;
  const int64_t num_seqs = testing::uniform_int(rng, 1, 5);
  for (int64_t i = 0; i < num_seqs; ++i) {
    const int64_t context = testing::uniform_int(rng, 1, 70);
    const bool decode = (rng() % 3) == 0;
    seqs.push_back({context, decode ? 1 : testing::uniform_int(rng, 1, context)});
  }
  return seqs;
}

TEST(PagedAttention, ReferenceMatchesContiguous) {
  std::mt19937_64 rng(91);
  for (int trial = 0; trial < 15; ++trial) {
    Scenario s = make_scenario(rng, KvDType::f32, random_seqs(rng));
    KvArena arena(s.spec);
    fill_arena(s, arena.view());
    std::vector<float> paged(s.q.size());
    reference::paged_attention(s.q.data(), arena.view(), 1, s.batch(), 0.37f, paged.data());
    EXPECT_LT(testing::relative_error(paged, contiguous(s)), 1e-5) << "trial " << trial;
  }
}

TEST(PagedAttention, OptimizedMatchesReferenceForEveryDtype) {
  std::mt19937_64 rng(92);
  ThreadPool pool(3);
  for (KvDType dtype : {KvDType::f32, KvDType::bf16, KvDType::int8}) {
    for (int trial = 0; trial < 10; ++trial) {
      Scenario s = make_scenario(rng, dtype, random_seqs(rng));
      KvArena arena(s.spec);
      fill_arena(s, arena.view());
      std::vector<float> expected(s.q.size()), actual(s.q.size());
      reference::paged_attention(s.q.data(), arena.view(), 1, s.batch(), 0.37f, expected.data());
      cpu::paged_attention(pool, s.q.data(), arena.view(), 1, s.batch(), 0.37f, actual.data());
      EXPECT_LT(testing::relative_error(actual, expected), 1e-5)
          << kv_dtype_name(dtype) << " trial " << trial;
      const double bound = dtype == KvDType::f32 ? 1e-5 : dtype == KvDType::bf16 ? 2e-2 : 3e-2;
      EXPECT_LT(testing::relative_error(actual, contiguous(s)), bound) << kv_dtype_name(dtype);
    }
  }
}

TEST(PagedAttention, PaddingRowsAreZeroAndChunksAgreeWithOneShot) {
  std::mt19937_64 rng(93);
  ThreadPool pool(2);
  // One sequence of 23 tokens attended in one shot, then as chunks 10 + 8 + 5 over the cache.
  Scenario s = make_scenario(rng, KvDType::f32, {{23, 23}});
  KvArena arena(s.spec);
  fill_arena(s, arena.view());
  std::vector<float> one_shot(s.q.size());
  cpu::paged_attention(pool, s.q.data(), arena.view(), 1, s.batch(), 0.37f, one_shot.data());
  const int64_t width = s.num_heads * s.spec.head_dim;
  for (auto [first, count] : {std::pair<int32_t, int32_t>{0, 10}, {10, 8}, {18, 5}}) {
    AttentionBatch chunk = s.batch();
    const std::vector<int32_t> starts = {0, count};
    chunk.query_start_loc = starts.data();
    chunk.num_tokens = count;
    chunk.positions = s.positions.data() + first;
    chunk.slot_mapping = s.slot_mapping.data() + first;
    std::vector<float> out(count * width);
    cpu::paged_attention(pool, s.q.data() + first * width, arena.view(), 1, chunk, 0.37f,
                         out.data());
    EXPECT_EQ(out, std::vector<float>(one_shot.begin() + first * width,
                                      one_shot.begin() + (first + count) * width));
  }
  s.slot_mapping[4] = -1;
  std::vector<float> padded(s.q.size(), 5.0f);
  cpu::paged_attention(pool, s.q.data(), arena.view(), 1, s.batch(), 0.37f, padded.data());
  for (int64_t i = 0; i < width; ++i) EXPECT_EQ(padded[4 * width + i], 0.0f);
  EXPECT_EQ(padded[5 * width], one_shot[5 * width]);
}

}  // namespace
}  // namespace tidal::kernels
