// Each backend call of the paged forward lands in its operator class (time is only checked to be
// charged somewhere, never for its amount).
#include "engine/profile/timing_backend.h"

#include <gtest/gtest.h>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/kv_cache.h"
#include "models/communicator.h"
#include "models/paged_forward.h"
#include "models/presets.h"
#include "models/random_weights.h"

namespace tidal::profile {
namespace {

using perf::OpClass;

// One 20-token prefill of `preset` through `timing`; returns the number of logits.
int64_t run_forward(const std::string& preset, kernels::Backend& inner,
                    std::unique_ptr<TimingBackend>& timing) {
  const models::ModelConfig config = *models::find_preset(preset);
  const models::ModelWeights weights = models::random_weights(config, 3);
  timing = std::make_unique<TimingBackend>(inner, config);
  kernels::KvCacheSpec spec{config.num_layers,    8, 16, config.num_kv_heads, config.head_dim,
                            kernels::KvDType::f32};
  kernels::KvArena arena(spec);
  models::SingleRankCommunicator comm;
  models::PagedModel model(weights, *timing, comm);
  models::ForwardBatch batch;
  models::SequenceInput seq;
  for (int32_t i = 0; i < 20; ++i) {
    seq.token_ids.push_back(i + 1);
    seq.positions.push_back(i);
    seq.slot_mapping.push_back(i);
  }
  seq.block_table = {0, 1};
  batch.sequences.push_back(seq);
  const std::vector<float> logits = model.forward(batch, arena.view());
  return static_cast<int64_t>(logits.size());
}

TEST(TimingBackend, ChargesEveryDenseOperatorClass) {
  kernels::cpu::CpuBackend cpu(1);
  std::unique_ptr<TimingBackend> timing;
  EXPECT_EQ(run_forward("tiny", cpu, timing), 512);
  for (OpClass op : {OpClass::embedding, OpClass::norm, OpClass::qkv_proj, OpClass::rope,
                     OpClass::attention_prefill, OpClass::o_proj, OpClass::mlp_up_gate,
                     OpClass::mlp_act, OpClass::mlp_down, OpClass::lm_head}) {
    EXPECT_GT(timing->nanoseconds(op), 0) << perf::op_class_name(op);
  }
  for (OpClass op : {OpClass::moe_router, OpClass::moe_experts, OpClass::residual_add,
                     OpClass::allreduce, OpClass::cpu_overhead}) {
    EXPECT_EQ(timing->nanoseconds(op), 0) << perf::op_class_name(op);
  }
  timing->reset();
  EXPECT_EQ(timing->total_nanoseconds(), 0);
}

TEST(TimingBackend, MoeLayersChargeRouterAndExperts) {
  kernels::cpu::CpuBackend cpu(1);
  std::unique_ptr<TimingBackend> timing;
  run_forward("tiny-moe", cpu, timing);
  EXPECT_GT(timing->nanoseconds(OpClass::moe_router), 0);
  EXPECT_GT(timing->nanoseconds(OpClass::moe_experts), 0);
  EXPECT_GT(timing->nanoseconds(OpClass::lm_head), 0);
  for (OpClass op : {OpClass::mlp_up_gate, OpClass::mlp_act, OpClass::mlp_down}) {
    EXPECT_EQ(timing->nanoseconds(op), 0) << perf::op_class_name(op);
  }
}

}  // namespace
}  // namespace tidal::profile
