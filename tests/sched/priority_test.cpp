// queue_policy "priority": admission by (priority, arrival), the priority_then_newest victim
// rule, waiting requests preempting less urgent running ones; fcfs unchanged; the trace field.
#include <cstdint>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "engine/sched/config_json.h"
#include "engine/sched/scheduler.h"
#include "tests/sched/sched_driver.h"
#include "traces/reader.h"
#include "traces/writer.h"

namespace tidal::sched {
namespace {

using testing::Driver;
using testing::DriveResult;
using testing::kv_pool;
using testing::make_workload;
using testing::request;
using testing::validation_error;

Request with_priority(Request r, int32_t priority) {
  r.priority = priority;
  return r;
}

std::vector<int64_t> ids_of(const StepPlan& plan) {
  std::vector<int64_t> ids;
  for (const ScheduledSeq& seq : plan.seqs) ids.push_back(seq.request_id);
  return ids;
}

std::vector<int64_t> preempted_ids(const StepPlan& plan) {
  std::vector<int64_t> ids;
  for (const Preemption& p : plan.preempted) ids.push_back(p.request_id);
  return ids;
}

// One request at a time: the admission order is the queue order.
std::vector<int64_t> admission_order(const std::string& queue_policy) {
  SchedulerConfig c;
  c.queue_policy = queue_policy;
  c.max_num_seqs = 1;
  c.static_batch_size = 1;
  std::vector<Request> requests;
  const int32_t priorities[] = {3, 1, 2, 1, 0, 3};
  for (int64_t id = 0; id < 6; ++id) {
    requests.push_back(with_priority(request(id, 20, 2), priorities[id]));
  }
  Driver driver(c, kv_pool(100));
  const DriveResult result = driver.run(requests, 1000);
  EXPECT_TRUE(result.finished);
  return result.first_scheduled_order;
}

TEST(PriorityQueue, AdmitsByPriorityThenArrival) {
  EXPECT_EQ(admission_order("priority"), (std::vector<int64_t>{4, 1, 3, 2, 0, 5}));
  EXPECT_EQ(admission_order("fcfs"), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST(PriorityQueue, AbsentPriorityCountsAsZero) {
  SchedulerConfig c;
  c.queue_policy = "priority";
  c.max_num_seqs = 1;
  c.static_batch_size = 1;
  Driver driver(c, kv_pool(100));
  const DriveResult result = driver.run({with_priority(request(0, 20, 2), 1), request(1, 20, 2),
                                         with_priority(request(2, 20, 2), -1)},
                                        1000);
  EXPECT_EQ(result.first_scheduled_order, (std::vector<int64_t>{2, 1, 0}));
}

// 20 blocks of 16 tokens, no watermark. Running: r2 (priority 1, 4 blocks), r1 and r3 (priority
// 5, 8 and 4 blocks); 4 blocks free.
struct PreemptionCase {
  PreemptionCase() : kv(kv_pool(20)), scheduler(config(), kv) {
    add(with_priority(request(1, 120, 40), 5));
    add(with_priority(request(2, 50, 40), 1));
    add(with_priority(request(3, 50, 40), 5));
    EXPECT_EQ(ids_of(step()), (std::vector<int64_t>{2, 1, 3}));  // admitted most urgent first
    EXPECT_EQ(kv.num_free_blocks(), 4);
  }
  static SchedulerConfig config() {
    SchedulerConfig c;
    c.queue_policy = "priority";
    c.watermark = 0.0;
    return c;
  }
  void add(const Request& r) { ASSERT_EQ(scheduler.add_request(r, now), RejectReason::none); }
  // One step; returns a copy of its plan.
  StepPlan step() {
    StepPlan plan = scheduler.schedule(now);
    now += 10;
    scheduler.update({}, now);
    EXPECT_EQ(kv.check_invariants(), "");
    return plan;
  }

  int64_t now = 0;
  kv::BlockManager kv;
  Scheduler scheduler;
};

TEST(PriorityPreemption, AnUrgentArrivalPreemptsTheLeastUrgentNewest) {
  PreemptionCase c;
  c.add(with_priority(request(4, 90, 40), 0));  // 6 blocks: r3 (priority 5, newest) makes room
  const StepPlan plan = c.step();
  EXPECT_EQ(preempted_ids(plan), (std::vector<int64_t>{3}));
  // r3's decode was planned before the admission preempted it; it is out of the plan again.
  EXPECT_EQ(ids_of(plan), (std::vector<int64_t>{2, 1, 4}));
  EXPECT_EQ(plan.seqs[2].num_new_tokens, 90);
  EXPECT_EQ(c.kv.num_free_blocks(), 2);
  EXPECT_EQ(c.scheduler.num_waiting(), 1);
  EXPECT_EQ(c.scheduler.stats().num_recompute_preemptions, 1);

  c.add(with_priority(request(6, 90, 40), 3));  // beats r1 (priority 5), not r2 or r4
  const StepPlan second = c.step();
  EXPECT_EQ(preempted_ids(second), (std::vector<int64_t>{1}));
  EXPECT_EQ(ids_of(second), (std::vector<int64_t>{4, 2, 6}));
  EXPECT_EQ(c.scheduler.num_waiting(), 2);  // r1 and r3
}

TEST(PriorityPreemption, NeverPreemptsAMoreOrEquallyUrgentRequest) {
  PreemptionCase c;
  c.add(with_priority(request(4, 90, 40), 5));  // as urgent as the least urgent running one
  c.add(with_priority(request(5, 90, 40), 9));
  for (int i = 0; i < 3; ++i) {
    const StepPlan plan = c.step();
    EXPECT_TRUE(plan.preempted.empty());
    EXPECT_EQ(ids_of(plan), (std::vector<int64_t>{2, 1, 3}));
  }
  EXPECT_EQ(c.scheduler.num_waiting(), 2);
}

TEST(PriorityPreemption, RunningRequestsThatGrowPreemptTheLeastUrgentFirst) {
  // 12 blocks: r0 (priority 0, newest) grows past its blocks while r1 (priority 2, oldest)
  // holds the rest; fcfs would preempt r0, priority preempts r1.
  for (const char* queue_policy : {"fcfs", "priority"}) {
    SchedulerConfig c;
    c.queue_policy = queue_policy;
    c.watermark = 0.0;
    kv::BlockManager kv(kv_pool(12));
    Scheduler s(c, kv);
    ASSERT_EQ(s.add_request(with_priority(request(1, 96, 60), 2), 0), RejectReason::none);
    ASSERT_EQ(s.add_request(with_priority(request(0, 96, 60), 0), 0), RejectReason::none);
    std::vector<int64_t> preempted;
    for (int64_t now = 0; now < 100 && preempted.empty(); ++now) {
      preempted = preempted_ids(s.schedule(now));
      s.update({}, now + 1);
    }
    EXPECT_EQ(preempted, (std::vector<int64_t>{std::string(queue_policy) == "fcfs" ? 0 : 1}))
        << queue_policy;
  }
}

void expect_conserved(const std::vector<Request>& requests, const DriveResult& result) {
  EXPECT_TRUE(result.finished);
  for (const Request& r : requests) {
    const auto& rec = result.records[static_cast<size_t>(r.id)];
    if (rec.reject != RejectReason::none) continue;
    EXPECT_EQ(rec.num_finish_events, 1) << "request " << r.id;
    EXPECT_EQ(rec.num_first_token_events, 1) << "request " << r.id;
    EXPECT_EQ(rec.num_output_tokens, r.output_tokens) << "request " << r.id;
  }
}

// Randomized workloads under memory pressure: every request finishes once, blocks all return,
// and every preempted request is less urgent (priority, then newer) than every request the same
// step schedules. The driver checks max_num_seqs, the token budget and the block invariants.
TEST(PriorityPreemption, RandomizedWorkloadsConserveRequestsAndNeverPreemptTheMoreUrgent) {
  struct Case {
    const char* policy;
    const char* preemption;
    bool prefix_caching;
  };
  const Case cases[] = {{"continuous", "recompute", false},
                        {"continuous", "swap", true},
                        {"chunked_prefill", "recompute", true},
                        {"chunked_prefill", "swap", false},
                        {"prefill_first", "recompute", false}};
  int64_t num_preempted = 0;
  int64_t num_admitting_preemptions = 0;  // steps that preempted and admitted a new request
  for (const Case& k : cases) {
    for (uint64_t seed : {1, 2, 3}) {
      SchedulerConfig c;
      c.queue_policy = "priority";
      c.policy = k.policy;
      c.preemption = k.preemption;
      c.max_num_seqs = 12;
      c.static_batch_size = 12;
      c.max_model_len = 1024;
      c.max_num_batched_tokens = std::string(k.policy) == "continuous" ? 1024 : 256;
      kv::BlockManagerConfig kvc = kv_pool(64, std::string(k.preemption) == "swap" ? 128 : 0);
      kvc.enable_prefix_caching = k.prefix_caching;
      std::vector<Request> requests = make_workload(seed, 250, 60.0, 400, 150);
      std::mt19937_64 rng(seed * 7 + 1);
      for (Request& r : requests) r.priority = static_cast<int32_t>(rng() % 5);
      Driver driver(c, kvc, seed);
      driver.set_plan_observer([&](const StepPlan& plan, int64_t /*now_ns*/) {
        bool admits = false;
        for (const ScheduledSeq& seq : plan.seqs) admits = admits || seq.first_scheduled;
        if (admits && !plan.preempted.empty()) ++num_admitting_preemptions;
        for (const Preemption& p : plan.preempted) {
          const Request& victim = requests[static_cast<size_t>(p.request_id)];
          for (const ScheduledSeq& seq : plan.seqs) {
            const Request& kept = requests[static_cast<size_t>(seq.request_id)];
            EXPECT_LT(std::pair(*kept.priority, kept.id), std::pair(*victim.priority, victim.id))
                << k.policy << " seed " << seed << ": preempted " << victim.id << " kept "
                << kept.id;
          }
        }
      });
      const DriveResult result = driver.run(requests, 400000);
      expect_conserved(requests, result);
      EXPECT_EQ(driver.block_manager().num_free_blocks(), 64) << k.policy << " seed " << seed;
      EXPECT_EQ(driver.scheduler().num_waiting() + driver.scheduler().num_running(), 0);
      num_preempted += result.num_preempted;
    }
  }
  EXPECT_GT(num_preempted, 0);
  EXPECT_GT(num_admitting_preemptions, 0);
}

// fcfs is the scheduler as it was before queue policies: the plan digests of these runs were
// recorded with the scheduler of commit d3facdc (plus the transferred-tokens change).
TEST(FcfsQueue, PlansAreThoseRecordedBeforeQueuePolicies) {
  struct Case {
    const char* policy;
    const char* preemption;
    bool prefix_caching;
    uint64_t digest;
    int64_t num_steps;
    int64_t num_preempted;
  };
  const Case cases[] = {
      {"continuous", "recompute", false, 11830190276147587248ULL, 6934, 16},
      {"chunked_prefill", "recompute", true, 14699845778257655756ULL, 6919, 64},
      {"chunked_prefill", "swap", false, 15750653222394523127ULL, 6967, 61},
      {"prefill_first", "recompute", true, 2819641457570517937ULL, 6982, 77},
      {"static", "recompute", false, 6366425982651222594ULL, 10911, 0},
  };
  for (const Case& k : cases) {
    SchedulerConfig c;
    c.policy = k.policy;
    c.preemption = k.preemption;
    c.max_num_seqs = 16;
    c.max_num_batched_tokens = std::string(k.policy) == "continuous" ? 2048 : 256;
    c.max_model_len = 2048;
    c.static_batch_size = 8;
    kv::BlockManagerConfig kvc = kv_pool(96, std::string(k.preemption) == "swap" ? 200 : 0);
    kvc.enable_prefix_caching = k.prefix_caching;
    std::vector<Request> requests = make_workload(11, 300, 40.0, 600, 120);
    // Priorities are ignored by fcfs.
    for (Request& r : requests) r.priority = static_cast<int32_t>(r.id % 3);
    Driver driver(c, kvc, 3);
    const DriveResult result = driver.run(requests, 200000);
    EXPECT_TRUE(result.finished) << k.policy;
    EXPECT_EQ(result.plan_digest, k.digest) << k.policy << " " << k.preemption;
    EXPECT_EQ(result.num_steps, k.num_steps) << k.policy;
    EXPECT_EQ(result.num_preempted, k.num_preempted) << k.policy;
  }
}

TEST(QueuePolicyConfig, NamesAreCheckedAndStaticNeedsFcfs) {
  ASSERT_EQ(queue_policy_names().size(), 3u);
  EXPECT_EQ(queue_policy_names()[0], "fcfs");
  EXPECT_EQ(queue_policy_names()[1], "priority");
  EXPECT_EQ(queue_policy_names()[2], "fair_share");
  SchedulerConfig c;
  c.queue_policy = "lifo";
  EXPECT_EQ(validation_error(c),
            "fleet.pools[0].scheduler.queue_policy: unknown queue policy 'lifo' (known: fcfs, "
            "priority, fair_share)");
  c = {};
  c.policy = "static";
  c.queue_policy = "priority";
  EXPECT_EQ(validation_error(c),
            "fleet.pools[0].scheduler.queue_policy: static batching forms its batches in arrival "
            "order; priority needs another policy (or queue_policy fcfs)");
  c.queue_policy = "fcfs";
  EXPECT_EQ(validation_error(c), "");
}

TEST(QueuePolicyConfig, JsonReadsAndEchoesTheKeys) {
  const SchedulerConfig c = parse_scheduler_config(
      nlohmann::json::parse(R"({"queue_policy": "priority"})"), "pools[0].scheduler");
  EXPECT_EQ(c.queue_policy, "priority");
  const nlohmann::json echo = to_json(SchedulerConfig{});
  EXPECT_EQ(echo.at("queue_policy"), "fcfs");
  EXPECT_EQ(echo.at("fair_share_input_weight"), 1.0);
  EXPECT_EQ(echo.at("fair_share_output_weight"), 2.0);
  EXPECT_EQ(parse_scheduler_config(to_json(c), "s").queue_policy, "priority");
  try {
    parse_scheduler_config(nlohmann::json::parse(R"({"queue_policy": 1})"), "pools[0].scheduler");
    FAIL() << "a number was accepted as queue_policy";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "pools[0].scheduler.queue_policy: must be a string");
  }
}

// ---- the trace field --------------------------------------------------------------------------

std::string read_error(const std::string& text, const std::string& name) {
  try {
    traces::read_trace_text(text, name);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PriorityTrace, JsonlAndCsvReadAndWriteIt) {
  Request a = request(0, 10, 2);
  a.priority = -3;
  Request b = request(1, 10, 2);  // none
  Request c = request(2, 10, 2);
  c.priority = 7;
  const std::vector<Request> requests{a, b, c};
  std::ostringstream jsonl;
  traces::write_jsonl(requests, jsonl);
  EXPECT_NE(jsonl.str().find(R"("priority":-3})"), std::string::npos);
  EXPECT_EQ(traces::read_trace_text(jsonl.str(), "t.jsonl"), requests);
  std::ostringstream csv;
  traces::write_csv(requests, csv);
  EXPECT_NE(csv.str().find(
                ",failed,priority,model,complexity,private,request_bytes,response_bytes,adapter\n"),
            std::string::npos);
  const std::vector<Request> from_csv = traces::read_trace_text(csv.str(), "t.csv");
  EXPECT_EQ(from_csv, requests);
  EXPECT_FALSE(from_csv[1].priority.has_value());
}

TEST(PriorityTrace, BadValuesNameFileLineAndField) {
  EXPECT_EQ(
      read_error("{\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1}\n"
                 "{\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1,\"priority\":1.5}\n",
                 "t.jsonl"),
      "t.jsonl:2: priority: not an integer: '1.5'");
  EXPECT_EQ(read_error("{\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1,"
                       "\"priority\":9999999999}\n",
                       "t.jsonl"),
            "t.jsonl:1: priority: out of range: 9999999999");
  EXPECT_EQ(
      read_error("arrival_s,prompt_tokens,output_tokens,priority\n0,1,1,2\n0,1,1,high\n", "t.csv"),
      "t.csv:3: priority: not an integer: 'high'");
}

}  // namespace
}  // namespace tidal::sched
