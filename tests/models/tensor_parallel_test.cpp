// Megatron tensor parallelism: shards have the right slices, and TP=2/4 forwards (ranks in
// their own threads, all-reduce in rank order) match TP=1: logits within 1e-5 relative (only
// the all-reduce changes the summation order) and the same greedy tokens; every rank returns
// the same bytes.
#include <thread>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/sampling.h"
#include "models/memory_footprint.h"
#include "models/random_weights.h"
#include "models/tensor_parallel.h"
#include "tests/models/model_test_support.h"

namespace tidal::models {
namespace {

ModelConfig tp_config(bool moe) {
  ModelConfig c;
  c.vocab_size = 256;
  c.hidden_size = 64;
  c.intermediate_size = 128;
  c.num_layers = 2;
  c.num_heads = 8;
  c.num_kv_heads = 4;
  c.head_dim = 16;
  c.max_position_embeddings = 512;
  if (moe) {
    c.num_local_experts = 4;
    c.num_experts_per_tok = 2;
  }
  return c;
}

// Greedy generation: a prompt prefill (all logits) then decode steps feeding the argmax.
// Returns the logits of every step of rank 0, and checks every rank agrees bit for bit.
std::vector<float> run_tensor_parallel(const ModelWeights& full, int world_size,
                                       std::vector<int32_t>& generated) {
  std::vector<ModelWeights> shards;
  for (int r = 0; r < world_size; ++r) shards.push_back(shard_weights(full, r, world_size));
  testing::ThreadedTestGroup group(world_size);
  std::vector<std::vector<float>> logits_of_rank(world_size);
  std::vector<std::vector<int32_t>> tokens_of_rank(world_size);
  std::vector<std::thread> threads;
  for (int r = 0; r < world_size; ++r) {
    threads.emplace_back([&, r] {
      kernels::cpu::CpuBackend backend(1);
      testing::ThreadedTestGroup::Rank comm(group, r);
      PagedModel model(shards[r], backend, comm);
      kernels::KvArena arena(kv_cache_spec(shards[r], 32, 4, kernels::KvDType::f32));
      testing::PagedSequences seqs(32, 4, 1);
      const int seq = seqs.add_sequence();
      std::mt19937_64 rng(7);
      ForwardBatch prefill;
      prefill.sequences.push_back(seqs.step(seq, testing::random_tokens(rng, 17, 256)));
      prefill.num_logit_rows = all_logit_rows(prefill);
      std::vector<float> logits = model.forward(prefill, arena.view());
      logits_of_rank[r] = logits;
      for (int step = 0; step < 6; ++step) {
        const int32_t token = kernels::argmax(logits.data() + logits.size() - 256, 256);
        tokens_of_rank[r].push_back(token);
        ForwardBatch decode;
        decode.sequences.push_back(seqs.step(seq, {token}));
        logits = model.forward(decode, arena.view());
        logits_of_rank[r].insert(logits_of_rank[r].end(), logits.begin(), logits.end());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 1; r < world_size; ++r) {
    EXPECT_EQ(logits_of_rank[r], logits_of_rank[0]) << "rank " << r;
  }
  generated = tokens_of_rank[0];
  return logits_of_rank[0];
}

class TensorParallelTest : public ::testing::TestWithParam<bool> {};

TEST_P(TensorParallelTest, Tp2And4MatchTp1) {
  const ModelWeights full = random_weights(tp_config(GetParam()), 41);
  std::vector<int32_t> tokens1;
  const std::vector<float> logits1 = run_tensor_parallel(full, 1, tokens1);
  for (int world_size : {2, 4}) {
    std::vector<int32_t> tokens;
    const std::vector<float> logits = run_tensor_parallel(full, world_size, tokens);
    ASSERT_EQ(logits.size(), logits1.size());
    EXPECT_LT(testing::relative_error(logits, logits1), 1e-5) << "tp " << world_size;
    EXPECT_EQ(tokens, tokens1) << "tp " << world_size;
  }
}

INSTANTIATE_TEST_SUITE_P(DenseAndMoe, TensorParallelTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "moe" : "dense"; });

TEST(TensorParallel, ShardSlicesAndErrors) {
  const ModelWeights full = random_weights(tp_config(false), 42);
  const ModelWeights shard = shard_weights(full, 1, 2);
  EXPECT_EQ(shard.shard.num_heads, 4);
  EXPECT_EQ(shard.shard.num_kv_heads, 2);
  EXPECT_EQ(shard.shard.intermediate_size, 64);
  const kernels::LinearWeight& q = shard.layers[0].q_proj;  // rows 64..127 of [128, 64]
  EXPECT_EQ(q.rows, 64);
  EXPECT_EQ(q.values[0], full.layers[0].q_proj.values[64 * 64]);
  const kernels::LinearWeight& o = shard.layers[0].o_proj;  // columns 64..127 of [64, 128]
  EXPECT_EQ(o.cols, 64);
  EXPECT_EQ(o.values[1 * 64 + 3], full.layers[0].o_proj.values[1 * 128 + 64 + 3]);
  const kernels::LinearWeight& down = shard.layers[1].mlp.down;  // columns 64..127 of [64, 128]
  EXPECT_EQ(down.values[5], full.layers[1].mlp.down.values[64 + 5]);
  EXPECT_EQ(kv_cache_spec(shard, 8, 4, kernels::KvDType::bf16).num_kv_heads, 2);

  try {
    check_tensor_parallel(tp_config(false), 3, "--tp");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--tp: 3 must divide num_attention_heads (8)");
  }
  EXPECT_THROW(check_tensor_parallel(tp_config(false), 8, "--tp"), InputError);  // kv heads 4
  EXPECT_THROW(check_tensor_parallel(tp_config(false), 0, "--tp"), InputError);
  EXPECT_THROW(shard_weights(shard, 0, 2), std::invalid_argument);  // already a shard

  kernels::cpu::CpuBackend backend(1);
  SingleRankCommunicator single;
  EXPECT_THROW(PagedModel(shard, backend, single), std::invalid_argument);
}

}  // namespace
}  // namespace tidal::models
