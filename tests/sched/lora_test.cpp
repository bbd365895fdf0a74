// LoRA adapters in the scheduler (SchedulerConfig::max_loras_per_batch): no step holds more
// distinct adapters than the limit, requests passed over keep their queue order and are served
// later, base-model requests are never held back, and without a limit nothing changes.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/sched/scheduler.h"
#include "tests/sched/sched_driver.h"

namespace tidal::sched {
namespace {

using testing::Driver;
using testing::DriveResult;
using testing::kv_pool;
using testing::request;

// 24 requests at time 0 over adapters a0..a5 (request i asks for a(i % 6)); every fourth asks
// for the base model.
std::vector<Request> adapter_requests() {
  std::vector<Request> requests;
  for (int64_t id = 0; id < 24; ++id) {
    Request r = request(id, 40, 6);
    if (id % 4 != 3) r.adapter = "a" + std::to_string(id % 6);
    requests.push_back(r);
  }
  return requests;
}

struct Observed {
  DriveResult result;
  size_t most_adapters = 0;                      // distinct adapters of the fullest step
  std::map<std::string, int64_t> first_step_of;  // adapter -> first step holding it
};

Observed drive(const std::string& policy, int32_t max_loras_per_batch) {
  SchedulerConfig c;
  c.policy = policy;
  c.max_num_seqs = 64;
  c.max_loras_per_batch = max_loras_per_batch;
  const std::vector<Request> requests = adapter_requests();
  Driver driver(c, kv_pool(1000));
  Observed observed;
  int64_t step = 0;
  driver.set_plan_observer([&](const StepPlan& plan, int64_t) {
    std::set<std::string> adapters;
    for (const ScheduledSeq& seq : plan.seqs) {
      const std::string& adapter = requests[static_cast<size_t>(seq.request_id)].adapter;
      if (adapter.empty()) continue;
      adapters.insert(adapter);
      observed.first_step_of.try_emplace(adapter, step);
    }
    observed.most_adapters = std::max(observed.most_adapters, adapters.size());
    ++step;
  });
  observed.result = driver.run(requests, 10000);
  return observed;
}

TEST(SchedulerLora, NoStepHoldsMoreAdaptersThanTheLimit) {
  for (const std::string policy : {"continuous", "chunked_prefill", "prefill_first"}) {
    for (int32_t limit : {1, 2, 4}) {
      const Observed o = drive(policy, limit);
      ASSERT_TRUE(o.result.finished) << policy << " " << limit;
      EXPECT_LE(o.most_adapters, static_cast<size_t>(limit)) << policy;
      EXPECT_EQ(o.most_adapters, static_cast<size_t>(limit)) << policy << ": the limit is reached";
      for (const auto& rec : o.result.records) EXPECT_EQ(rec.num_output_tokens, 6);
    }
  }
}

TEST(SchedulerLora, PassedOverRequestsKeepTheirOrderAndBaseRequestsGoFirst) {
  const Observed o = drive("continuous", 2);
  // Adapters enter in the order their first requests queued (a0 a1 a2 a4 a5 a3).
  const std::vector<Request> requests = adapter_requests();
  std::vector<std::string> queue_order;
  for (const Request& r : requests) {
    if (!r.adapter.empty() &&
        std::find(queue_order.begin(), queue_order.end(), r.adapter) == queue_order.end()) {
      queue_order.push_back(r.adapter);
    }
  }
  ASSERT_EQ(queue_order.size(), 6u);
  for (size_t a = 1; a < queue_order.size(); ++a) {
    EXPECT_LE(o.first_step_of.at(queue_order[a - 1]), o.first_step_of.at(queue_order[a]))
        << queue_order[a];
  }
  EXPECT_LT(o.first_step_of.at("a1"), o.first_step_of.at("a2"));  // two at a time
  // Requests of one adapter start in arrival order; base-model requests all start at once.
  std::map<std::string, int64_t> last_start;
  for (int64_t id : o.result.first_scheduled_order) {
    const std::string& adapter = requests[static_cast<size_t>(id)].adapter;
    if (adapter.empty()) {
      EXPECT_EQ(o.result.records[static_cast<size_t>(id)].first_scheduled_ns, 0) << id;
      continue;
    }
    if (auto it = last_start.find(adapter); it != last_start.end()) {
      EXPECT_LT(it->second, id);
    }
    last_start[adapter] = id;
  }
}

TEST(SchedulerLora, WithoutALimitEveryAdapterRunsAtOnce) {
  const Observed limited = drive("continuous", 0);
  EXPECT_EQ(limited.most_adapters, 6u);
  SchedulerConfig c;
  c.max_num_seqs = 64;
  std::vector<Request> base = adapter_requests();
  for (Request& r : base) r.adapter.clear();
  Driver driver(c, kv_pool(1000));
  const DriveResult plain = driver.run(base, 10000);
  // Adapters without a limit schedule exactly as the base model does.
  EXPECT_EQ(limited.result.plan_digest, plain.plan_digest);
  EXPECT_EQ(driver.scheduler().stats().num_lora_skips, 0);
}

}  // namespace
}  // namespace tidal::sched
