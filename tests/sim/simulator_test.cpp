// Conservation and ordering invariants of whole runs, over every batching policy and both
// preemption modes.
#include "sim/simulator.h"

#include <gtest/gtest.h>

#include "sim/metrics.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::make_request;
using testing::scenario_from;
using testing::TempDir;

nlohmann::json poisson(double rate, double duration_s, double prompt_median, double output_median) {
  return {{"kind", "poisson"},
          {"rate", rate},
          {"duration_s", duration_s},
          {"prompt",
           {{"dist", "lognormal"}, {"median", prompt_median}, {"sigma", 0.8}, {"max", 12000}}},
          {"output",
           {{"dist", "lognormal"}, {"median", output_median}, {"sigma", 0.8}, {"max", 2000}}}};
}

// Every request is finished exactly once or rejected with a reason; blocks all return;
// per-request times are ordered; the timeline counts every arrival and completion once.
void check_conservation(const RunResult& r) {
  const size_t n = r.table.requests.size();
  int64_t num_finished = 0;
  int64_t num_rejected = 0;
  for (size_t i = 0; i < n; ++i) {
    const RequestRecord& rec = r.records[i];
    const Request& req = r.table.requests[i];
    ASSERT_NE(rec.status, RequestStatus::pending) << "request " << i;
    if (rec.status == RequestStatus::rejected) {
      ++num_rejected;
      EXPECT_FALSE(rec.reason.empty()) << "request " << i;
      EXPECT_EQ(rec.finish_ns, -1);
      continue;
    }
    ++num_finished;
    EXPECT_TRUE(rec.reason.empty());
    EXPECT_EQ(rec.num_output_tokens_done, req.output_tokens) << "request " << i;
    EXPECT_GE(rec.arrival_ns, r.table.arrival_ns[i]);
    EXPECT_LE(rec.arrival_ns, rec.first_scheduled_ns);
    EXPECT_LT(rec.first_scheduled_ns, rec.first_token_ns);
    EXPECT_LE(rec.first_token_ns, rec.finish_ns);
    EXPECT_EQ(rec.last_token_ns, rec.finish_ns);
    const RequestLatency lat = request_latency(rec);
    EXPECT_GE(*lat.e2e_s, *lat.ttft_s);
    EXPECT_GE(*lat.ttft_s, *lat.queue_delay_s);
    EXPECT_GE(*lat.queue_delay_s, 0.0);
    EXPECT_GE(rec.replica, 0);
  }
  EXPECT_EQ(num_finished + num_rejected, static_cast<int64_t>(n));
  int64_t finished_by_schedulers = 0;
  for (const ReplicaSummary& rep : r.replicas) {
    EXPECT_EQ(rep.num_used_blocks_at_end, 0) << "KV blocks leaked";
    finished_by_schedulers += rep.scheduler.num_finished;
  }
  EXPECT_EQ(finished_by_schedulers, num_finished);
  int64_t arrivals = 0, finished = 0, rejected = 0;
  for (const TimelineRow& row : r.timeline) {
    arrivals += row.num_arrivals;
    finished += row.num_finished;
    rejected += row.num_rejected;
  }
  EXPECT_EQ(arrivals, static_cast<int64_t>(n));
  EXPECT_EQ(finished, num_finished);
  EXPECT_EQ(rejected, num_rejected);
  ASSERT_FALSE(r.timeline.empty());
  EXPECT_EQ(r.timeline.back().end_ns, r.end_ns);
}

struct PolicyCase {
  std::string policy;
  std::string preemption;
};

class Conservation : public ::testing::TestWithParam<PolicyCase> {};

TEST_P(Conservation, UnderKvPressure) {
  const PolicyCase& c = GetParam();
  nlohmann::json pool = h100_pool(2, {{"policy", c.policy},
                                      {"preemption", c.preemption},
                                      {"max_num_batched_tokens", 8192},
                                      {"static_batch_size", 8},
                                      {"static_batch_timeout_s", 0.2}});
  // About 20k tokens of KV per replica: long requests preempt each other.
  pool["gpu_memory_utilization"] = 0.25;
  pool["swap_space_gib"] = 1.0;
  const nlohmann::json j = {{"seed", 3},
                            {"workloads", {{{"generator", poisson(6.0, 30.0, 1500, 300)}}}},
                            {"fleet", {{"pools", {pool}}}}};
  const Scenario s = scenario_from(j);
  const RunResult r = run_scenario(s);
  check_conservation(r);
  EXPECT_GT(r.table.requests.size(), 120u);
  int64_t num_preemptions = 0;
  for (const RequestRecord& rec : r.records) num_preemptions += rec.num_preemptions;
  if (c.policy != "static") {
    EXPECT_GT(num_preemptions, 0) << "the load should exhaust KV";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Policies, Conservation,
    ::testing::Values(PolicyCase{"continuous", "recompute"}, PolicyCase{"continuous", "swap"},
                      PolicyCase{"chunked_prefill", "recompute"},
                      PolicyCase{"chunked_prefill", "swap"}, PolicyCase{"static", "recompute"}),
    [](const auto& info) { return info.param.policy + "_" + info.param.preemption; });

TEST(Simulator, RejectsWithTheSchedulersReason) {
  TempDir dir("sim_reject");
  dir.write_trace("t.jsonl", {make_request(0, 0.0, 100, 10), make_request(1, 0.1, 9000, 10),
                              make_request(2, 0.2, 100, 0), make_request(3, 0.3, 200, 5)});
  const nlohmann::json j = {{"workloads", {{{"trace", {{"path", "t.jsonl"}}}}}},
                            {"fleet", {{"pools", {h100_pool(1)}}}}};
  const RunResult r = run_scenario(scenario_from(j, dir.path().string()));
  check_conservation(r);
  EXPECT_EQ(r.records[0].status, RequestStatus::finished);
  EXPECT_EQ(r.records[1].status, RequestStatus::rejected);
  EXPECT_EQ(r.records[1].reason, "exceeds_max_model_len");
  EXPECT_EQ(r.records[2].reason, "no_output_tokens");
  EXPECT_EQ(r.records[3].status, RequestStatus::finished);
}

TEST(Simulator, DependentsWaitForTheirDepsAndInheritRejections) {
  TempDir dir("sim_deps");
  std::vector<Request> t = {make_request(0, 0.0, 500, 50), make_request(1, 0.0, 300, 20),
                            make_request(2, 0.0, 9000, 10), make_request(3, 0.1, 100, 10)};
  t[1].deps = {0};
  t[3].deps = {2};  // 2 is rejected (too long), so 3 is too
  dir.write_trace("t.jsonl", t);
  const nlohmann::json j = {{"workloads", {{{"trace", {{"path", "t.jsonl"}}}}}},
                            {"fleet", {{"pools", {h100_pool(2)}}}}};
  const RunResult r = run_scenario(scenario_from(j, dir.path().string()));
  check_conservation(r);
  EXPECT_EQ(r.records[1].status, RequestStatus::finished);
  EXPECT_EQ(r.records[1].arrival_ns, r.records[0].finish_ns);  // released when 0 finished
  EXPECT_GE(r.records[1].first_scheduled_ns, r.records[0].finish_ns);
  EXPECT_EQ(r.records[3].status, RequestStatus::rejected);
  EXPECT_EQ(r.records[3].reason, kDependencyRejected);
}

// A rejected request rejects everything that waits on it, under one reason however many there
// are, so the run's rejection counts (summary.json, the summary line) stay one entry per cause.
TEST(Simulator, RejectedDependentsCountUnderOneReason) {
  TempDir dir("sim_deps_fanout");
  std::vector<Request> t = {make_request(0, 0.0, 9000, 10), make_request(1, 0.0, 9000, 10)};
  for (int64_t id = 2; id < 42; ++id) {
    t.push_back(make_request(id, 0.1, 100, 10));
    t.back().deps = {id % 2};  // half wait on 0, half on 1: both too long, both rejected
  }
  dir.write_trace("t.jsonl", t);
  const nlohmann::json j = {{"workloads", {{{"trace", {{"path", "t.jsonl"}}}}}},
                            {"fleet", {{"pools", {h100_pool(1)}}}}};
  const Scenario s = scenario_from(j, dir.path().string());
  RunResult r = run_scenario(s);
  check_conservation(r);
  for (int64_t id = 2; id < 42; ++id) {
    EXPECT_EQ(r.records[static_cast<size_t>(id)].reason, kDependencyRejected);
  }
  const RunMetrics m = compute_metrics(s, r);
  ASSERT_EQ(m.rejections.size(), 2u);
  EXPECT_EQ(m.rejections[0].first, kDependencyRejected);
  EXPECT_EQ(m.rejections[0].second, 40);
  EXPECT_EQ(m.rejections[1].first, "exceeds_max_model_len");
  EXPECT_EQ(m.rejections[1].second, 2);
}

TEST(Simulator, StaticBatchingWakesAtItsTimeout) {
  TempDir dir("sim_static");
  dir.write_trace("t.jsonl", {make_request(0, 0.0, 100, 5), make_request(1, 0.05, 100, 5)});
  const nlohmann::json j = {{"workloads", {{{"trace", {{"path", "t.jsonl"}}}}}},
                            {"fleet",
                             {{"pools",
                               {h100_pool(1, {{"policy", "static"},
                                              {"static_batch_size", 4},
                                              {"static_batch_timeout_s", 0.5}})}}}}};
  const RunResult r = run_scenario(scenario_from(j, dir.path().string()));
  check_conservation(r);
  // The batch never fills: it starts when the oldest request has waited the timeout.
  EXPECT_EQ(r.records[0].first_scheduled_ns, 500'000'000);
  EXPECT_EQ(r.records[1].first_scheduled_ns, 500'000'000);
}

TEST(Simulator, IdleReplicasSleepUntilArrivals) {
  TempDir dir("sim_idle");
  dir.write_trace("t.jsonl", {make_request(0, 0.0, 100, 3), make_request(1, 1000.0, 100, 3)});
  const nlohmann::json j = {{"workloads", {{{"trace", {{"path", "t.jsonl"}}}}}},
                            {"fleet", {{"pools", {h100_pool(4)}}}}};
  const RunResult r = run_scenario(scenario_from(j, dir.path().string()));
  check_conservation(r);
  // 2 arrival events + per request one wake and 3 steps (prefill + 2 decodes).
  EXPECT_EQ(r.num_steps, 6);
  EXPECT_EQ(r.num_events, 2 + 2 * (1 + 3));
  EXPECT_EQ(r.records[1].first_scheduled_ns, 1000'000'000'000);
}

TEST(Simulator, SameInputsGiveTheSameRun) {
  const nlohmann::json j = {{"seed", 11},
                            {"workloads", {{{"generator", poisson(8.0, 20.0, 800, 200)}}}},
                            {"fleet", {{"pools", {h100_pool(3)}}}},
                            {"router", {{"policy", "round_robin"}}}};
  const Scenario s = scenario_from(j);
  const RunResult a = run_scenario(s);
  const RunResult b = run_scenario(s);
  ASSERT_EQ(a.records.size(), b.records.size());
  for (size_t i = 0; i < a.records.size(); ++i) {
    EXPECT_EQ(a.records[i].first_token_ns, b.records[i].first_token_ns);
    EXPECT_EQ(a.records[i].finish_ns, b.records[i].finish_ns);
    EXPECT_EQ(a.records[i].replica, static_cast<int32_t>(i % 3));  // round robin
  }
  EXPECT_EQ(a.num_events, b.num_events);
}

// Leaving out the ITL samples changes nothing else: the same records, steps and events, and
// every metric but ITL's.
TEST(Simulator, RunWithoutItlSamplesDiffersOnlyInItl) {
  const nlohmann::json j = {{"seed", 5},
                            {"workloads", {{{"generator", poisson(8.0, 20.0, 800, 200)}}}},
                            {"fleet", {{"pools", {h100_pool(2)}}}}};
  const Scenario s = scenario_from(j);
  const RequestTable table = load_workloads(s);
  RunResult with = simulate(s, table);
  RunResult without = simulate(s, table, RunOptions{.itl_samples = false});
  EXPECT_GT(with.itl.count(), 1000);
  EXPECT_EQ(without.itl.count(), 0);
  EXPECT_EQ(with.num_steps, without.num_steps);
  EXPECT_EQ(with.num_events, without.num_events);
  ASSERT_EQ(with.records.size(), without.records.size());
  for (size_t i = 0; i < with.records.size(); ++i) {
    EXPECT_EQ(with.records[i].first_token_ns, without.records[i].first_token_ns);
    EXPECT_EQ(with.records[i].finish_ns, without.records[i].finish_ns);
    EXPECT_EQ(with.records[i].max_itl_ns, without.records[i].max_itl_ns);
  }
  const RunMetrics a = compute_metrics(s, with);
  const RunMetrics b = compute_metrics(s, without);
  EXPECT_EQ(b.itl.count, 0);
  EXPECT_EQ(a.ttft.p99, b.ttft.p99);
  EXPECT_EQ(a.tpot.p50, b.tpot.p50);
  EXPECT_EQ(a.e2e.mean, b.e2e.mean);
  EXPECT_EQ(a.dollars, b.dollars);
  EXPECT_EQ(a.slo_attainment, b.slo_attainment);
}

}  // namespace
}  // namespace tidal::sim
