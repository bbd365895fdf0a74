// Steps priced from their sums (perf::RankSums): the roofline's step time and work of a batch of
// GQA attention to every token follow from its counts and summed pairs and reads, and a repeated
// decode step's sums from the previous step's (GqaBatchSums::advance_repeated_step). Both must
// equal pricing the batch itself, to the bit; models the sums cannot price say so.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "perf/gpu_catalog.h"
#include "perf/model_catalog.h"
#include "perf/roofline_costs.h"
#include "perf/step_costs.h"
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

TabulatedStepModel roofline_model(const ModelSpec& model, const Deployment& deployment,
                                  int32_t attention_dp = 1) {
  return TabulatedStepModel(std::make_unique<RooflineCosts>(model, find_gpu("H100-SXM", "test"),
                                                            deployment, RooflineOptions{}),
                            4096, 512, attention_dp);
}

TEST(RankSums, RepeatedStepsPriceAsTheirBatches) {
  for (const char* name : {"llama-3-8b", "qwen3-30b-a3b", "mixtral-8x7b"}) {
    for (const DType kv : {DType::bf16, DType::fp8}) {
      SCOPED_TRACE(name);
      Deployment deployment;
      deployment.tp = 2;
      deployment.kv_dtype = kv;
      const ModelSpec& model = find_model(name, "test");
      const StepWorkCounter counter(model, find_gpu("H100-SXM", "test"), deployment);
      const TabulatedStepModel step_model = roofline_model(model, deployment);
      ASSERT_TRUE(counter.prices_by_sums());
      ASSERT_TRUE(step_model.prices_by_sums());
      std::vector<SeqWork> batch = decode_step();
      RankSums sums = rank_sums(batch);
      const double first_s = step_model.summed_step_seconds(sums);
      EXPECT_EQ(first_s, step_model.step_seconds(batch));
      EXPECT_EQ(counter.step_work(sums).flops, counter.step_work(batch).flops);
      EXPECT_EQ(counter.step_work(sums).bytes, counter.step_work(batch).bytes);
      for (int step = 0; step < 50; ++step) {
        for (SeqWork& seq : batch) ++seq.num_context_tokens;
        sums.full.advance_repeated_step();
        ASSERT_EQ(step_model.summed_step_seconds(sums), step_model.step_seconds(batch)) << step;
        const OpWork advanced = counter.step_work(sums);
        const OpWork priced = counter.step_work(batch);
        ASSERT_EQ(advanced.flops, priced.flops) << "step " << step;
        ASSERT_EQ(advanced.bytes, priced.bytes) << "step " << step;
      }
      EXPECT_GT(step_model.step_seconds(batch), first_s);  // the contexts grew
    }
  }
}

TEST(RankSums, SlidingLatentAndDataParallelAttentionPriceBatches) {
  Deployment deployment;
  deployment.tp = 8;
  for (const char* name : {"gpt-oss-120b", "deepseek-v3", "gemma-2-9b"}) {
    const ModelSpec& model = find_model(name, "test");
    EXPECT_FALSE(StepWorkCounter(model, find_gpu("H100-SXM", "test"), deployment).prices_by_sums())
        << name;
    EXPECT_FALSE(roofline_model(model, deployment).prices_by_sums()) << name;
  }
  deployment.tp = 1;
  EXPECT_FALSE(roofline_model(find_model("llama-3-8b", "test"), deployment, 2).prices_by_sums());
}

}  // namespace
}  // namespace tidal::perf
