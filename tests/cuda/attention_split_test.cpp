// How paged attention splits the context (host arithmetic, runs without a device) and the
// argument checks that run before any launch.
#include <gtest/gtest.h>

#include "kernels/cuda/launchers.h"

namespace tidal::kernels::cuda {
namespace {

AttentionBatch batch_of(int64_t num_tokens, int64_t max_blocks_per_seq) {
  AttentionBatch batch;
  batch.num_seqs = num_tokens;
  batch.num_tokens = num_tokens;
  batch.max_blocks_per_seq = max_blocks_per_seq;
  batch.num_heads = 32;
  batch.num_kv_heads = 8;
  batch.head_dim = 128;
  return batch;
}

TEST(AttentionSplit, LongDecodeSplitsIntoPartitionsCoveringTheContext) {
  // One sequence, 32768 positions: 256 partitions of 128 (32 heads x 256 <= 16384 partials).
  const AttentionBatch batch = batch_of(1, 2048);
  const AttentionSplit split = choose_attention_split(batch, 16, 128);
  EXPECT_EQ(split.num_splits, 256);
  EXPECT_EQ(split.partition_size, 128);
  EXPECT_GE(split.num_splits * split.partition_size, 32768);
  EXPECT_EQ(attention_workspace_floats(batch, split), 32 * 256 * 130);
}

TEST(AttentionSplit, PartialsCapLimitsSplitsAndBigBatchesRunUnsplit) {
  const AttentionSplit capped = choose_attention_split(batch_of(64, 2048), 16, 128);
  EXPECT_EQ(capped.num_splits, kAttentionMaxPartials / (64 * 32));  // 8
  EXPECT_EQ(capped.partition_size % 128, 0);
  EXPECT_GE(capped.num_splits * capped.partition_size, 32768);

  const AttentionBatch big = batch_of(4096, 256);
  const AttentionSplit one = choose_attention_split(big, 16, 128);
  EXPECT_EQ(one.num_splits, 1);
  EXPECT_GE(one.partition_size, 4096);
  EXPECT_EQ(attention_workspace_floats(big, one), 0);
}

TEST(AttentionSplit, ShortContextOnePartition) {
  const AttentionSplit split = choose_attention_split(batch_of(1, 4), 16, 128);
  EXPECT_EQ(split.num_splits, 1);
  EXPECT_EQ(split.partition_size, 128);
}

TEST(LaunchChecks, BadSamplingParametersThrowBeforeLaunch) {
  SamplingParams bad_p;
  bad_p.top_p = 0.0f;
  EXPECT_THROW(launch_sample(nullptr, 1, 10, bad_p, nullptr, nullptr, nullptr),
               std::invalid_argument);
  SamplingParams bad_k;
  bad_k.top_k = -1;
  EXPECT_THROW(launch_sample(nullptr, 1, 10, bad_k, nullptr, nullptr, nullptr),
               std::invalid_argument);
  EXPECT_THROW(launch_sample(nullptr, 1, 0, SamplingParams{}, nullptr, nullptr, nullptr),
               std::invalid_argument);
}

TEST(LaunchChecks, BadInt8WeightsThrowBeforeLaunch) {
  LinearView view;
  view.format = WeightFormat::int8;
  view.rows = 4;
  view.cols = 96;
  view.group_size = 64;  // does not divide cols
  EXPECT_THROW(launch_int8_linear(nullptr, 1, view, nullptr, 0, nullptr), std::invalid_argument);
  view.group_size = 32;
  EXPECT_THROW(launch_int8_linear(nullptr, 1, view, nullptr, 7, nullptr), std::invalid_argument);
}

TEST(LaunchChecks, AttentionHeadDimAndGroupsChecked) {
  AttentionBatch batch = batch_of(1, 4);
  batch.head_dim = 512;
  const KvCacheView kv;
  EXPECT_THROW(launch_paged_attention(nullptr, kv, 0, batch, 1.0f, AttentionSplit{}, nullptr,
                                      nullptr, nullptr),
               std::invalid_argument);
  batch.head_dim = 128;
  batch.num_kv_heads = 5;
  EXPECT_THROW(launch_paged_attention(nullptr, kv, 0, batch, 1.0f, AttentionSplit{}, nullptr,
                                      nullptr, nullptr),
               std::invalid_argument);
}

}  // namespace
}  // namespace tidal::kernels::cuda
