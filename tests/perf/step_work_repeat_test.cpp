// StepWorkCounter::repeated_step_work advances a step's sums to the step that repeats it (every
// sequence one token further) and must give the work of that step priced from its batch, to the
// bit; models whose work the sums cannot give (sliding windows, latent attention) say so.
#include <gtest/gtest.h>

#include <vector>

#include "perf/gpu_catalog.h"
#include "perf/model_catalog.h"
#include "perf/step_work.h"

namespace tidal::perf {
namespace {

// Decodes on assorted contexts and the first steps of one-token prompts (a prefill of one token
// on no context), as a step a repeat may follow.
std::vector<SeqWork> decode_step() {
  std::vector<SeqWork> batch;  // [num seqs]
  for (int64_t i = 0; i < 40; ++i) batch.push_back(SeqWork{1, 17 + 131 * i, 1});
  batch.push_back(SeqWork{1, 0, 1});
  batch.push_back(SeqWork{1, 0, 1});
  return batch;
}

TEST(StepWorkRepeat, RepeatedStepsEqualTheirBatchesPricedInFull) {
  for (const char* name : {"llama-3-8b", "qwen3-30b-a3b", "mixtral-8x7b"}) {
    for (const DType kv : {DType::bf16, DType::fp8}) {
      SCOPED_TRACE(name);
      Deployment deployment;
      deployment.tp = 2;
      deployment.kv_dtype = kv;
      const StepWorkCounter counter(find_model(name, "test"), find_gpu("H100-SXM", "test"),
                                    deployment);
      ASSERT_TRUE(counter.advances_repeated_steps());
      std::vector<SeqWork> batch = decode_step();
      RankSums sums;
      const OpWork first = counter.step_work(batch, sums);
      EXPECT_EQ(first.flops, counter.step_work(batch).flops);
      EXPECT_EQ(first.bytes, counter.step_work(batch).bytes);
      for (int step = 0; step < 50; ++step) {
        for (SeqWork& seq : batch) ++seq.num_context_tokens;
        const OpWork advanced = counter.repeated_step_work(sums);
        const OpWork priced = counter.step_work(batch);
        ASSERT_EQ(advanced.flops, priced.flops) << "step " << step;
        ASSERT_EQ(advanced.bytes, priced.bytes) << "step " << step;
      }
      EXPECT_GT(counter.step_work(batch).flops, first.flops);  // the contexts grew
    }
  }
}

TEST(StepWorkRepeat, SlidingAndLatentAttentionDoNotAdvance) {
  const GpuSpec& gpu = find_gpu("H100-SXM", "test");
  Deployment deployment;
  deployment.tp = 8;
  for (const char* name : {"gpt-oss-120b", "deepseek-v3", "gemma-2-9b"}) {
    EXPECT_FALSE(
        StepWorkCounter(find_model(name, "test"), gpu, deployment).advances_repeated_steps())
        << name;
  }
}

}  // namespace
}  // namespace tidal::perf
