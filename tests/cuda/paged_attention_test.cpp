// KV write and paged attention on the CUDA backend against the CPU reference, for every KV
// dtype: decode over long contexts (split along the context, then reduced), prefill over a
// cached prefix (causal within the chunk), GQA, scattered blocks and a padding row.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cuda/kv_arena.h"
#include "tests/cuda/cuda_test_util.h"
#include "tests/kernels/test_random.h"

namespace tidal::kernels::cuda {
namespace {

using kernels::testing::random_values;
using kernels::testing::relative_error;
using testing::to_device;
using testing::to_host;

constexpr int64_t kLayers = 2, kLayer = 1, kBlockSize = 16, kKvHeads = 2, kHeads = 8,
                  kHeadDim = 128;

// Host arrays of one attention batch; a sequence's new tokens are its last num_new positions.
struct HostBatch {
  std::vector<int32_t> query_start_loc{0};  // [num_seqs + 1]
  std::vector<int32_t> positions;           // [num_tokens]
  std::vector<int64_t> slot_mapping;        // [num_tokens]
  std::vector<int32_t> block_tables;        // [num_seqs, max_blocks_per_seq]
  int64_t max_blocks_per_seq = 0;
};

KvCacheSpec spec_for(int64_t num_blocks, KvDType dtype, int64_t num_kv_heads = kKvHeads) {
  return KvCacheSpec{kLayers, num_blocks, kBlockSize, num_kv_heads, kHeadDim, dtype};
}

class CudaPagedAttention : public ::testing::TestWithParam<KvDType> {
 protected:
  void SetUp() override {
    TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
    backend_ = std::make_unique<CudaBackend>(0);
  }

  // Fills the cache of every sequence (reference write_kv), then compares attention outputs.
  void check(const std::vector<int64_t>& context_lens, const std::vector<int64_t>& num_new,
             bool padding_row) {
    const int64_t num_seqs = static_cast<int64_t>(context_lens.size());
    HostBatch batch;
    batch.max_blocks_per_seq =
        (*std::max_element(context_lens.begin(), context_lens.end()) + kBlockSize - 1) / kBlockSize;
    int64_t total_blocks = 0;
    for (const int64_t len : context_lens) total_blocks += (len + kBlockSize - 1) / kBlockSize;
    std::vector<int32_t> free_blocks(total_blocks + 3);
    std::iota(free_blocks.begin(), free_blocks.end(), 0);
    std::shuffle(free_blocks.begin(), free_blocks.end(), rng_);
    batch.block_tables.assign(num_seqs * batch.max_blocks_per_seq, 0);
    size_t next_block = 0;
    for (int64_t s = 0; s < num_seqs; ++s) {
      for (int64_t b = 0; b * kBlockSize < context_lens[s]; ++b) {
        batch.block_tables[s * batch.max_blocks_per_seq + b] = free_blocks[next_block++];
      }
    }
    KvArena host_arena(
        spec_for(static_cast<int64_t>(free_blocks.size()), GetParam(), num_kv_heads_));
    const KvCacheView host_kv = host_arena.view();
    // Every cached token of every sequence, written through the reference.
    for (int64_t s = 0; s < num_seqs; ++s) {
      std::vector<int64_t> slots(context_lens[s]);
      for (int64_t p = 0; p < context_lens[s]; ++p) {
        slots[p] = batch.block_tables[s * batch.max_blocks_per_seq + p / kBlockSize] * kBlockSize +
                   p % kBlockSize;
      }
      const auto k = random_values(rng_, context_lens[s] * num_kv_heads_ * kHeadDim);
      const auto v = random_values(rng_, context_lens[s] * num_kv_heads_ * kHeadDim);
      reference_.write_kv(host_kv, kLayer, k.data(), v.data(), slots.data(), context_lens[s]);
      for (int64_t p = context_lens[s] - num_new[s]; p < context_lens[s]; ++p) {
        batch.positions.push_back(static_cast<int32_t>(p));
        batch.slot_mapping.push_back(slots[p]);
      }
      if (padding_row && s == num_seqs - 1) {
        batch.positions.push_back(0);
        batch.slot_mapping.push_back(-1);
      }
      batch.query_start_loc.push_back(static_cast<int32_t>(batch.positions.size()));
    }
    const int64_t num_tokens = static_cast<int64_t>(batch.positions.size());
    const auto q = random_values(rng_, num_tokens * num_heads_ * kHeadDim);
    AttentionBatch host_batch{num_seqs,
                              num_tokens,
                              batch.query_start_loc.data(),
                              batch.positions.data(),
                              batch.slot_mapping.data(),
                              batch.block_tables.data(),
                              batch.max_blocks_per_seq,
                              num_heads_,
                              num_kv_heads_,
                              kHeadDim};
    const float scale = 0.0883883f;
    std::vector<float> expected(num_tokens * num_heads_ * kHeadDim);
    reference_.paged_attention(q.data(), host_kv, kLayer, host_batch, scale, expected.data());

    CudaKvArena device_arena(host_kv.spec);
    KvCacheView device_kv = device_arena.view();
    testing::copy_to_device(device_kv.data, host_kv.data, host_kv.spec.total_bytes());
    auto d_qsl = to_device(batch.query_start_loc);
    auto d_pos = to_device(batch.positions);
    auto d_slots = to_device(batch.slot_mapping);
    auto d_tables = to_device(batch.block_tables);
    AttentionBatch device_batch = host_batch;
    device_batch.query_start_loc = d_qsl.data();
    device_batch.positions = d_pos.data();
    device_batch.slot_mapping = d_slots.data();
    device_batch.block_tables = d_tables.data();
    auto d_q = to_device(q);
    DeviceBuffer<float> d_out(expected.size());
    backend_->set_attention_variant(variant_);
    backend_->paged_attention(d_q.data(), device_kv, kLayer, device_batch, scale, d_out.data());
    const std::vector<float> actual = to_host(*backend_, d_out);
    EXPECT_LT(relative_error(actual, expected), tolerance_);
    if (padding_row) {
      for (int64_t i = (num_tokens - 1) * num_heads_ * kHeadDim;
           i < num_tokens * num_heads_ * kHeadDim; ++i) {
        ASSERT_EQ(actual[i], 0.0f);
      }
    }
  }

  int64_t num_heads_ = kHeads;
  int64_t num_kv_heads_ = kKvHeads;
  // CUDA cores in fp32 by default; the tensor-core tests below set 2 and a bf16 tolerance.
  int variant_ = 1;
  double tolerance_ = 2e-5;
  std::unique_ptr<CudaBackend> backend_;
  cpu::ReferenceBackend reference_;
  std::mt19937_64 rng_{4242};
};

TEST_P(CudaPagedAttention, DecodeShortAndLongContexts) {
  check({1, 17, 300, 3000, 9001}, {1, 1, 1, 1, 1}, false);
}

TEST_P(CudaPagedAttention, DecodeWithPaddingRow) {
  check({40, 129}, {1, 1}, true);
}

TEST_P(CudaPagedAttention, PrefillOverCachedPrefix) {
  check({140, 64, 33}, {40, 64, 1}, false);
}

TEST_P(CudaPagedAttention, WideGroupsSpanSeveralBlocks) {
  // 20 query heads on 1 kv head: groups of 8, 8 and 4 query heads per block.
  num_heads_ = 20;
  num_kv_heads_ = 1;
  check({700, 90}, {1, 30}, true);
}

TEST_P(CudaPagedAttention, LargeBatchUsesOneSplitOverManyChunks) {
  // 2561 query rows x 8 heads is past kAttentionMaxPartials: every block runs unsplit, and the
  // 3000-position decode walks 24 chunks of keys with the online softmax alone.
  std::vector<int64_t> context_lens(40, 64);
  std::vector<int64_t> num_new(40, 64);
  context_lens.push_back(3000);
  num_new.push_back(1);
  check(context_lens, num_new, false);
}

// Tensor cores (bf16 cache only): q and the softmax weights are rounded to bf16, so the outputs
// match the fp32 reference to about 2^-8 of their largest magnitude.
class CudaPagedAttentionTensorCores : public CudaPagedAttention {
 protected:
  void SetUp() override {
    CudaPagedAttention::SetUp();
    variant_ = 2;
    tolerance_ = 1e-2;
  }
};

TEST_P(CudaPagedAttentionTensorCores, PrefillChunksOverCachedPrefixesAndDecodeRows) {
  // Tiles of 64 rows: a 140-row prompt (three tiles, the last partial), a chunk of 45 new rows
  // after 655 cached ones (keys far past the rows' tile), a one-row decode and a padding row.
  check({140, 700, 64, 33}, {140, 45, 1, 1}, true);
}

TEST_P(CudaPagedAttentionTensorCores, WideGroupsAndDecodeOnlyBatches) {
  num_heads_ = 20;
  num_kv_heads_ = 1;
  check({700, 90, 1}, {1, 30, 1}, false);
  check({17, 300, 3000}, {1, 1, 1}, false);
}

INSTANTIATE_TEST_SUITE_P(Bf16Kv, CudaPagedAttentionTensorCores, ::testing::Values(KvDType::bf16),
                         [](const ::testing::TestParamInfo<KvDType>& info) {
                           return std::string(kv_dtype_name(info.param));
                         });

TEST_P(CudaPagedAttention, WriteKvMatchesReferenceBytesAndSkipsPadding) {
  const int64_t num_blocks = 6, num_tokens = 20;
  KvArena host_arena(spec_for(num_blocks, GetParam()));
  const KvCacheView host_kv = host_arena.view();
  CudaKvArena device_arena(host_kv.spec);
  const KvCacheView device_kv = device_arena.view();
  std::vector<int64_t> slots(num_tokens);
  std::vector<int64_t> all(num_blocks * kBlockSize);
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), rng_);
  std::copy_n(all.begin(), num_tokens, slots.begin());
  slots[3] = -1;
  slots[11] = -1;
  const auto k = random_values(rng_, num_tokens * kKvHeads * kHeadDim);
  const auto v = random_values(rng_, num_tokens * kKvHeads * kHeadDim);
  reference_.write_kv(host_kv, kLayer, k.data(), v.data(), slots.data(), num_tokens);
  auto d_k = to_device(k);
  auto d_v = to_device(v);
  auto d_slots = to_device(slots);
  backend_->write_kv(device_kv, kLayer, d_k.data(), d_v.data(), d_slots.data(), num_tokens);
  backend_->synchronize();
  std::vector<std::byte> device_bytes(host_kv.spec.total_bytes());
  TIDAL_CUDA_CHECK(
      cudaMemcpy(device_bytes.data(), device_kv.data, device_bytes.size(), cudaMemcpyDeviceToHost));
  const auto* host_bytes = static_cast<const std::byte*>(host_kv.data);
  EXPECT_TRUE(std::equal(device_bytes.begin(), device_bytes.end(), host_bytes));
}

INSTANTIATE_TEST_SUITE_P(AllKvDtypes, CudaPagedAttention,
                         ::testing::Values(KvDType::f32, KvDType::bf16, KvDType::int8),
                         [](const ::testing::TestParamInfo<KvDType>& info) {
                           return std::string(kv_dtype_name(info.param));
                         });

}  // namespace
}  // namespace tidal::kernels::cuda
