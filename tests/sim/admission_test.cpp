// Admission control at the router (sim/router_admission.h): each policy on hand-built traces
// with the exact requests it rejects and why, determinism, the echo, and bad configurations.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/input_error.h"
#include "fleet_test_util.h"
#include "sim/router_admission.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::make_request;
using testing::run_fleet_scenario;
using testing::scenario_from;
using testing::TempDir;

Request tenant_request(int64_t id, double arrival_s, int64_t prompt, int64_t output,
                       const std::string& tenant) {
  Request r = make_request(id, arrival_s, prompt, output);
  r.tenant = tenant;
  return r;
}

nlohmann::json trace_workload(const std::string& file, const std::string& slo_class,
                              const nlohmann::json& slo = nlohmann::json::object()) {
  return {{"trace", {{"path", file}}}, {"slo_class", slo_class}, {"slo", slo}};
}

// One H100 replica serving `workloads` with router admission `admission`.
Scenario admission_scenario(const TempDir& dir, const std::vector<nlohmann::json>& workloads,
                            const nlohmann::json& admission, nlohmann::json pool = h100_pool(1)) {
  return scenario_from({{"workloads", nlohmann::json(workloads)},
                        {"fleet", {{"pools", {pool}}}},
                        {"router", {{"admission", admission}}}},
                       dir.path().string());
}

// One replica that takes one request at a time: the rest wait at the router.
nlohmann::json one_at_a_time_pool() {
  nlohmann::json pool = h100_pool(1);
  pool["autoscaler"] = {{"policy", "target_concurrency"},
                        {"target_inputs", 1},
                        {"max_inputs", 1},
                        {"min_replicas", 1},
                        {"max_replicas", 1}};
  return pool;
}

std::vector<int64_t> rejected_ids(const RunResult& result) {
  std::vector<int64_t> ids;
  for (size_t i = 0; i < result.records.size(); ++i) {
    if (result.records[i].status == RequestStatus::rejected) ids.push_back(static_cast<int64_t>(i));
  }
  return ids;
}

std::string error_of(const nlohmann::json& admission) {
  TempDir dir("admission_error");
  const std::string trace = dir.write_trace("t.jsonl", {make_request(0, 0.0, 10, 10)});
  try {
    admission_scenario(dir, {trace_workload(trace, "chat")}, admission);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Admission, NoneRejectsNothingAndLeavesTheRunAsWithoutTheKey) {
  TempDir dir("admission_none");
  std::vector<Request> burst;
  for (int i = 0; i < 40; ++i) burst.push_back(make_request(i, 0.0, 2000, 20));
  const std::string trace = dir.write_trace("burst.jsonl", burst);
  const std::vector<nlohmann::json> workloads = {trace_workload(trace, "chat", {{"ttft_s", 0.01}})};
  const auto plain = run_fleet_scenario(scenario_from(
      {{"workloads", nlohmann::json(workloads)}, {"fleet", {{"pools", {h100_pool(1)}}}}},
      dir.path().string()));
  const auto none = run_fleet_scenario(admission_scenario(dir, workloads, {{"policy", "none"}}));
  EXPECT_EQ(none.metrics.num_rejected, 0);
  ASSERT_EQ(none.result.records.size(), plain.result.records.size());
  for (size_t i = 0; i < plain.result.records.size(); ++i) {
    EXPECT_EQ(none.result.records[i].first_token_ns, plain.result.records[i].first_token_ns);
    EXPECT_EQ(none.result.records[i].finish_ns, plain.result.records[i].finish_ns);
  }
  EXPECT_EQ(none.result.end_ns, plain.result.end_ns);
}

TEST(Admission, TokenBucketRefillsAtItsRatePerTenant) {
  TempDir dir("admission_bucket");
  // Tenant a: 100 tokens/s, burst 300; every request costs 90 + 10 = 100 tokens.
  //   t=0: 300 -> 200, 100, 0 (ids 0, 1, 2 admitted)
  //   t=0.5: 0 + 50 = 50 < 100: id 3 rejected (takes nothing)
  //   t=1: 50 + 50 = 100: id 4 admitted (-> 0); id 5 finds 0: rejected
  //   t=3: 0 + 200 = 200: id 6 admitted (-> 100)
  //   t=10: min(300, 100 + 700) = 300: id 8 admitted
  // Tenant b's bucket is its own: id 7 at t=3 is admitted though a's bucket was empty at t=1.
  const std::string trace = dir.write_trace(
      "t.jsonl", {tenant_request(0, 0.0, 90, 10, "a"), tenant_request(1, 0.0, 90, 10, "a"),
                  tenant_request(2, 0.0, 90, 10, "a"), tenant_request(3, 0.5, 90, 10, "a"),
                  tenant_request(4, 1.0, 90, 10, "a"), tenant_request(5, 1.0, 90, 10, "a"),
                  tenant_request(6, 3.0, 90, 10, "a"), tenant_request(7, 3.0, 250, 50, "b"),
                  tenant_request(8, 10.0, 290, 10, "a")});
  const auto run = run_fleet_scenario(admission_scenario(
      dir, {trace_workload(trace, "chat")},
      {{"policy", "token_bucket"}, {"tokens_per_s", 100}, {"burst_tokens", 300}}));
  EXPECT_EQ(rejected_ids(run.result), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(run.result.records[3].reason, "admission token_bucket: tenant \"a\" over 100 tokens/s");
  EXPECT_EQ(run.result.records[3].replica, -1);  // never routed
  ASSERT_EQ(run.metrics.rejections.size(), 1u);
  EXPECT_EQ(run.metrics.rejections[0].first, run.result.records[3].reason);
  EXPECT_EQ(run.metrics.rejections[0].second, 2);
  EXPECT_EQ(run.metrics.num_finished, 7);
}

TEST(Admission, TokenBucketTenantOverridesAndRequestUnits) {
  TempDir dir("admission_bucket_requests");
  // 2 requests/s, burst 1: t=0 admitted (-> 0), t=0.25 finds 0.5 (rejected), t=0.5 finds 1
  // (admitted), t=0.75 finds 0.5 (rejected). Tenant b's override (burst 3) admits all three.
  const std::string trace = dir.write_trace(
      "t.jsonl", {tenant_request(0, 0.0, 10, 10, "a"), tenant_request(1, 0.25, 5000, 10, "a"),
                  tenant_request(2, 0.5, 10, 10, "a"), tenant_request(3, 0.75, 10, 10, "a"),
                  tenant_request(4, 0.8, 10, 10, "b"), tenant_request(5, 0.8, 10, 10, "b"),
                  tenant_request(6, 0.8, 10, 10, "b")});
  const auto run =
      run_fleet_scenario(admission_scenario(dir, {trace_workload(trace, "chat")},
                                            {{"policy", "token_bucket"},
                                             {"unit", "requests"},
                                             {"tokens_per_s", 2},
                                             {"burst_tokens", 1},
                                             {"tenants", {{"b", {{"burst_tokens", 3}}}}}}));
  EXPECT_EQ(rejected_ids(run.result), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(run.result.records[1].reason, "admission token_bucket: tenant \"a\" over 2 requests/s");
  EXPECT_EQ(run.scenario.router.admission.tenants.at("b"), (TokenBucketRate{2.0, 3.0}));
}

TEST(Admission, QueueLimitRejectsRequestsFindingTheRouterQueueFull) {
  TempDir dir("admission_queue");
  // Request 0 occupies the one slot (about 0.3 s of decoding); 1 and 2 wait at the router;
  // 3 and 4 find two requests waiting.
  const std::string trace =
      dir.write_trace("t.jsonl", {make_request(0, 0.0, 100, 50), make_request(1, 0.001, 100, 50),
                                  make_request(2, 0.002, 100, 50), make_request(3, 0.003, 50, 50),
                                  make_request(4, 0.004, 100, 50)});
  const auto by_count = run_fleet_scenario(
      admission_scenario(dir, {trace_workload(trace, "chat")},
                         {{"policy", "queue_limit"}, {"max_queued", 2}}, one_at_a_time_pool()));
  EXPECT_EQ(rejected_ids(by_count.result), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(by_count.result.records[3].reason,
            "admission queue_limit: router queue holds 2 requests");
  // By tokens (prompt + output): held 150, then 300; request 3 (100 tokens) makes 400, within
  // the limit; request 4 (150) would make 550.
  const auto by_tokens = run_fleet_scenario(admission_scenario(
      dir, {trace_workload(trace, "chat")}, {{"policy", "queue_limit"}, {"max_queued_tokens", 400}},
      one_at_a_time_pool()));
  EXPECT_EQ(rejected_ids(by_tokens.result), (std::vector<int64_t>{4}));
  EXPECT_EQ(by_tokens.result.records[4].reason,
            "admission queue_limit: router queue over 400 tokens");
}

// Six 4,000-token chat prompts and one batch prompt arrive together at one replica (nothing has
// run yet, so each sees the ones admitted before it as backlog), then one chat prompt long
// after. The k-th admitted chat prompt is predicted (k + 1) x 4000 / rate.
class SloDeadline : public ::testing::Test {
 protected:
  static constexpr int64_t kPrompt = 4000;

  void SetUp() override {
    std::vector<Request> chat;
    for (int i = 0; i < 6; ++i) chat.push_back(make_request(i, 0.0, kPrompt, 10));
    chat.push_back(make_request(6, 100.0, kPrompt, 10));
    chat_ = dir_.write_trace("chat.jsonl", chat);
    batch_ = dir_.write_trace("batch.jsonl", {make_request(0, 0.0, kPrompt, 10)});
    rate_ = prefill_tokens_per_s(run(1.0, {}).scenario.pools[0]);
  }
  testing::FleetRun run(double ttft_bound_s, nlohmann::json pool) {
    if (pool.is_null()) pool = h100_pool(1);
    return run_fleet_scenario(
        admission_scenario(dir_,
                           {trace_workload(chat_, "chat", {{"ttft_s", ttft_bound_s}}),
                            trace_workload(batch_, "batch")},
                           {{"policy", "slo_deadline"}}, pool));
  }

  TempDir dir_{"admission_slo"};
  std::string chat_, batch_;
  double rate_ = 0.0;
};

TEST_F(SloDeadline, RejectsOnlyWhenThePredictionExceedsTheBound) {
  // Ids by arrival: 0-5 chat, 6 batch (same time, later workload), 7 chat at t=100.
  // A bound of exactly 3 prompts' time admits the third chat prompt.
  const double bound = static_cast<double>(3 * kPrompt) / rate_;
  const auto at_bound = run(bound, {});
  EXPECT_EQ(rejected_ids(at_bound.result), (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(at_bound.result.records[3].reason,
            fmt::format("admission slo_deadline: predicted TTFT over class \"chat\" bound {:g} s",
                        bound));
  // Just below it, the third is rejected too; the batch class (no bound) never is.
  const auto below = run(std::nextafter(bound, 0.0), {});
  EXPECT_EQ(rejected_ids(below.result), (std::vector<int64_t>{2, 3, 4, 5}));
  // A generous bound admits all.
  EXPECT_TRUE(rejected_ids(run(100.0, {}).result).empty());
}

TEST_F(SloDeadline, CountsTheRouterQueueAhead) {
  // One request at a time: request 0 is dispatched, 1 waits at the router (predicted 2 prompts
  // on the replica), 2 would wait behind 1 (2 prompts + 1 queued: 3 prompts' time).
  nlohmann::json pool = one_at_a_time_pool();
  const double bound = 2.5 * static_cast<double>(kPrompt) / rate_;
  const auto queued = run(bound, pool);
  EXPECT_EQ(rejected_ids(queued.result), (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(queued.metrics.num_finished, 4);  // 0, 1, the batch request and the late one
}

TEST(Admission, SameScenarioSameRejections) {
  TempDir dir("admission_determinism");
  const std::vector<nlohmann::json> workloads = {
      {{"generator",
        {{"kind", "poisson"},
         {"rate", 40},
         {"duration_s", 20},
         {"tenant", "a"},
         {"prompt", {{"dist", "lognormal"}, {"median", 1500}, {"sigma", 0.8}, {"max", 8000}}},
         {"output", {{"dist", "fixed"}, {"value", 64}}}}},
       {"slo_class", "chat"},
       {"slo", {{"ttft_s", 0.5}}}}};
  for (const nlohmann::json& admission :
       {nlohmann::json{{"policy", "token_bucket"}, {"tokens_per_s", 30000}},
        nlohmann::json{{"policy", "slo_deadline"}}}) {
    const auto first = run_fleet_scenario(admission_scenario(dir, workloads, admission));
    const auto second = run_fleet_scenario(admission_scenario(dir, workloads, admission));
    EXPECT_GT(first.metrics.num_rejected, 0) << admission.dump();
    EXPECT_LT(first.metrics.num_rejected, first.metrics.num_requests) << admission.dump();
    ASSERT_EQ(first.result.records.size(), second.result.records.size());
    for (size_t i = 0; i < first.result.records.size(); ++i) {
      EXPECT_EQ(first.result.records[i].reason, second.result.records[i].reason);
      EXPECT_EQ(first.result.records[i].finish_ns, second.result.records[i].finish_ns);
    }
  }
}

// examples/admission: the answers its README gives come out the right way round.
TEST(Admission, ExampleFiguresComeOutTheRightWayRound) {
  const auto example = [](const std::string& name) {
    return run_fleet_scenario(
        load_scenario_file(std::string(TIDAL_SOURCE_DIR) + "/examples/admission/" + name));
  };
  const auto none = example("scenario.json");
  const auto bucket = example("token-bucket.json");
  const auto deadline = example("slo-deadline.json");
  EXPECT_EQ(none.metrics.num_rejected, 0);
  ASSERT_EQ(bucket.metrics.rejections.size(), 1u);
  EXPECT_EQ(bucket.metrics.rejections[0].first,
            "admission token_bucket: tenant \"bulk\" over 12000 tokens/s");
  ASSERT_EQ(deadline.metrics.rejections.size(), 2u);  // both classes
  EXPECT_LT(bucket.metrics.ttft.p99, none.metrics.ttft.p99 / 100);
  EXPECT_LT(deadline.metrics.ttft.p99, none.metrics.ttft.p99 / 2);
  EXPECT_GT(bucket.metrics.slo_attainment, deadline.metrics.slo_attainment);
  EXPECT_GT(deadline.metrics.slo_attainment, none.metrics.slo_attainment);
}

TEST(Admission, EchoListsThePolicysOwnKnobsAndReloads) {
  TempDir dir("admission_echo");
  const std::string trace = dir.write_trace("t.jsonl", {make_request(0, 0.0, 10, 10)});
  const Scenario s = admission_scenario(dir, {trace_workload(trace, "chat")},
                                        {{"policy", "token_bucket"},
                                         {"tokens_per_s", 50},
                                         {"tenants", {{"a", {{"tokens_per_s", 5}}}}}});
  const nlohmann::ordered_json echo = scenario_to_json(s);
  EXPECT_EQ(echo["router"]["admission"].dump(),
            R"({"policy":"token_bucket","unit":"tokens","tokens_per_s":50.0,"burst_tokens":50.0,)"
            R"("tenants":{"a":{"tokens_per_s":5.0,"burst_tokens":50.0}}})");
  const Scenario again = scenario_from(nlohmann::json::parse(echo.dump()), dir.path().string());
  EXPECT_EQ(again.router.admission, s.router.admission);
  const Scenario plain =
      scenario_from({{"workloads", nlohmann::json::array({trace_workload(trace, "chat")})},
                     {"fleet", {{"pools", {h100_pool(1)}}}}},
                    dir.path().string());
  EXPECT_EQ(scenario_to_json(plain)["router"]["admission"].dump(), R"({"policy":"none"})");
  const Scenario queue = admission_scenario(dir, {trace_workload(trace, "chat")},
                                            {{"policy", "queue_limit"}, {"max_queued", 8}});
  EXPECT_EQ(scenario_to_json(queue)["router"]["admission"].dump(),
            R"({"policy":"queue_limit","max_queued":8})");
}

TEST(Admission, BadConfigurationsAreOneClearError) {
  EXPECT_EQ(error_of({{"policy", "lottery"}}),
            "scenario.json: router.admission.policy: unknown admission policy \"lottery\" "
            "(known: none, token_bucket, queue_limit, slo_deadline)");
  EXPECT_EQ(error_of({{"policy", "token_bucket"}, {"tokens_per_s", 10}, {"rate", 3}}),
            "scenario.json: router.admission.rate: unknown key (known keys: policy, unit, "
            "tokens_per_s, burst_tokens, tenants, max_queued, max_queued_tokens)");
  EXPECT_EQ(error_of({{"policy", "token_bucket"}, {"tokens_per_s", -1}}),
            "scenario.json: router.admission.tokens_per_s: must be >= 0, got -1");
  EXPECT_EQ(error_of({{"policy", "token_bucket"}}),
            "scenario.json: router.admission.tokens_per_s: missing (required by token_bucket)");
  EXPECT_EQ(error_of({{"policy", "token_bucket"}, {"tokens_per_s", 10}, {"burst_tokens", 0}}),
            "scenario.json: router.admission.burst_tokens: must be > 0, got 0");
  EXPECT_EQ(error_of({{"policy", "token_bucket"}, {"tokens_per_s", 10}, {"unit", "bytes"}}),
            "scenario.json: router.admission.unit: unknown unit \"bytes\" (known: tokens, "
            "requests)");
  EXPECT_EQ(error_of({{"policy", "token_bucket"},
                      {"tokens_per_s", 10},
                      {"tenants", {{"a", {{"tokens_per_s", -2}}}}}}),
            "scenario.json: router.admission.tenants.a.tokens_per_s: must be >= 0, got -2");
  EXPECT_EQ(error_of({{"policy", "token_bucket"},
                      {"tokens_per_s", 10},
                      {"tenants", {{"a", {{"max_queued", 2}}}}}}),
            "scenario.json: router.admission.tenants.a.max_queued: unknown key (known keys: "
            "tokens_per_s, burst_tokens)");
  EXPECT_EQ(error_of({{"policy", "queue_limit"}, {"tokens_per_s", 5}, {"max_queued", 2}}),
            "scenario.json: router.admission.tokens_per_s: not a knob of admission policy "
            "\"queue_limit\" (a knob of token_bucket)");
  EXPECT_EQ(error_of({{"max_queued", 3}}),
            "scenario.json: router.admission.max_queued: not a knob of admission policy "
            "\"none\" (a knob of queue_limit)");
  EXPECT_EQ(error_of({{"policy", "queue_limit"}}),
            "scenario.json: router.admission.max_queued: missing (queue_limit needs max_queued "
            "or max_queued_tokens)");
  EXPECT_EQ(error_of({{"policy", "queue_limit"}, {"max_queued", 0}}),
            "scenario.json: router.admission.max_queued: must be >= 1, got 0");
  EXPECT_EQ(error_of({{"policy", "slo_deadline"}, {"burst_tokens", 3}}),
            "scenario.json: router.admission.burst_tokens: not a knob of admission policy "
            "\"slo_deadline\" (a knob of token_bucket)");
}

}  // namespace
}  // namespace tidal::sim
