#include "engine/sched/config.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "engine/sched/config_json.h"
#include "engine/sched/scheduler.h"
#include "sched_driver.h"

namespace tidal::sched {
namespace {

using testing::validation_error;

TEST(SchedulerConfig, DefaultsAreValid) {
  EXPECT_EQ(validation_error(SchedulerConfig{}), "");
  ASSERT_EQ(batch_policy_names().size(), 4u);
  EXPECT_EQ(batch_policy_names()[0], "static");
  EXPECT_EQ(batch_policy_names()[1], "continuous");
  EXPECT_EQ(batch_policy_names()[2], "chunked_prefill");
  EXPECT_EQ(batch_policy_names()[3], "prefill_first");
  ASSERT_EQ(preemption_mode_names().size(), 2u);
}

// A budget left out is 8192, except for chunked_prefill: vLLM's 2048 chunk budget.
TEST(SchedulerConfig, ChunkedPrefillDefaultsToVllmsChunkBudget) {
  EXPECT_EQ(default_max_num_batched_tokens("chunked_prefill"), 2048);
  for (const char* policy : {"static", "continuous", "prefill_first"}) {
    EXPECT_EQ(default_max_num_batched_tokens(policy), 8192) << policy;
  }
}

TEST(SchedulerConfig, ValidationMessagesNameTheKey) {
  SchedulerConfig c;
  c.policy = "fifo";
  EXPECT_EQ(validation_error(c),
            "fleet.pools[0].scheduler.policy: unknown batching policy 'fifo' (known: static, "
            "continuous, chunked_prefill, prefill_first)");
  c = {};
  c.admission = "eager";
  EXPECT_EQ(validation_error(c),
            "fleet.pools[0].scheduler.admission: unknown admission policy 'eager' (known: "
            "max_utilization, guaranteed_no_evict)");
  c = {};
  c.preemption = "kill";
  EXPECT_EQ(validation_error(c),
            "fleet.pools[0].scheduler.preemption: unknown preemption mode 'kill' (known: "
            "recompute, swap)");
  c = {};
  c.max_num_seqs = 0;
  EXPECT_EQ(validation_error(c),
            "fleet.pools[0].scheduler.max_num_seqs: must be at least 1 (got 0)");
  c = {};
  c.watermark = 1.0;
  EXPECT_EQ(validation_error(c),
            "fleet.pools[0].scheduler.watermark: must be in [0, 1) (got 1.000000)");
  c = {};
  c.policy = "static";
  c.static_batch_size = 300;
  EXPECT_EQ(validation_error(c),
            "fleet.pools[0].scheduler.static_batch_size: 300 exceeds max_num_seqs 256");
  // Other policies never form a static batch: a small max_num_seqs alone is fine.
  c = {};
  c.max_num_seqs = 4;
  EXPECT_EQ(validation_error(c), "");
  c = {};
  c.num_speculative_tokens = -1;
  EXPECT_EQ(validation_error(c),
            "fleet.pools[0].scheduler.num_speculative_tokens: must be at least 0 (got -1)");
  c = {};
  c.max_num_batched_tokens = 2048;
  EXPECT_EQ(validation_error(c),
            "fleet.pools[0].scheduler.max_num_batched_tokens: 2048 is below max_model_len 8192; "
            "the continuous policy never splits a prompt (raise it or use chunked_prefill)");
  c.policy = "chunked_prefill";
  EXPECT_EQ(validation_error(c), "");
  c.policy = "static";  // a static batch's prompts are prefilled in chunks of the budget
  EXPECT_EQ(validation_error(c), "");
  c = {};
  c.preemption = "swap";
  EXPECT_EQ(validation_error(c),
            "fleet.pools[0].scheduler.preemption: swap needs a CPU block pool, but "
            "num_cpu_blocks is 0 (give the pool CPU swap space or use recompute)");
  EXPECT_EQ(validation_error(c, 64), "");
  c.policy = "prefill_first";  // SGLang recomputes; a swap-in could mix prefill and decode
  EXPECT_EQ(validation_error(c, 64),
            "fleet.pools[0].scheduler.preemption: swap is not supported by the prefill_first "
            "policy (use recompute)");
  c = {};
  c.policy = "prefill_first";
  c.max_num_batched_tokens = 2048;  // it splits prompts
  EXPECT_EQ(validation_error(c), "");
}

TEST(SchedulerConfig, JsonRoundTripAndStrictKeys) {
  const auto j = nlohmann::json::parse(
      R"({"policy": "chunked_prefill", "max_num_batched_tokens": 512, "watermark": 0.05,
          "num_speculative_tokens": 3, "static_batch_timeout_s": 1, "schedule_ahead": true})");
  const SchedulerConfig c = parse_scheduler_config(j, "pools[0].scheduler");
  EXPECT_TRUE(c.schedule_ahead);
  EXPECT_EQ(c.policy, "chunked_prefill");
  EXPECT_EQ(c.max_num_batched_tokens, 512);
  EXPECT_DOUBLE_EQ(c.watermark, 0.05);
  EXPECT_EQ(c.num_speculative_tokens, 3);
  EXPECT_DOUBLE_EQ(c.static_batch_timeout_s, 1.0);
  EXPECT_EQ(c.max_num_seqs, 256);  // default kept
  const SchedulerConfig back = parse_scheduler_config(to_json(c), "x");
  EXPECT_EQ(to_json(back), to_json(c));

  auto error = [](const char* text) {
    try {
      parse_scheduler_config(nlohmann::json::parse(text), "pools[0].scheduler");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(R"({"max_seqs": 3})"),
            "pools[0].scheduler.max_seqs: unknown key (known: policy, admission, preemption, "
            "max_num_seqs, max_num_batched_tokens, watermark, max_model_len, static_batch_size, "
            "static_batch_timeout_s, num_speculative_tokens, queue_policy, "
            "fair_share_input_weight, fair_share_output_weight, schedule_ahead)");
  EXPECT_EQ(error(R"({"schedule_ahead": 1})"),
            "pools[0].scheduler.schedule_ahead: must be true or false");
  EXPECT_EQ(error(R"({"max_num_seqs": 2.5})"),
            "pools[0].scheduler.max_num_seqs: must be an integer");
  EXPECT_EQ(error(R"({"policy": 3})"), "pools[0].scheduler.policy: must be a string");
  EXPECT_EQ(error(R"({"watermark": "low"})"), "pools[0].scheduler.watermark: must be a number");
  EXPECT_EQ(error(R"({"max_num_seqs": 99999999999})"),
            "pools[0].scheduler.max_num_seqs: out of range");
  EXPECT_EQ(error(R"([1])"), "pools[0].scheduler: must be an object");
}

TEST(SchedulerConfig, SchedulerConstructorValidates) {
  kv::BlockManager kv(testing::kv_pool(1000));
  SchedulerConfig c;
  c.policy = "nope";
  EXPECT_THROW(Scheduler(c, kv), InputError);
}

}  // namespace
}  // namespace tidal::sched
