// Queue policies from scenario files: the top-level `priorities` map reaching the pool
// scheduler (`queue_policy` priority), fair share between tenants, and the head-of-line example
// (examples/hol/) whose chat tail priority shortens.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/input_error.h"
#include "fleet_test_util.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::make_request;
using testing::run_fleet_scenario;
using testing::scenario_from;
using testing::TempDir;

nlohmann::json trace_workload(const std::string& file, const std::string& slo_class) {
  return {{"trace", {{"path", file}}}, {"slo_class", slo_class}};
}

// One replica running one sequence at a time: every later arrival waits while one runs.
// (static_batch_size is checked against max_num_seqs whatever the policy.)
nlohmann::json one_seq_pool(const std::string& queue_policy) {
  return h100_pool(1, {{"policy", "chunked_prefill"},
                       {"max_num_seqs", 1},
                       {"static_batch_size", 1},
                       {"queue_policy", queue_policy}});
}

const ClassMetrics& class_named(const RunMetrics& metrics, const std::string& name) {
  for (const ClassMetrics& c : metrics.classes) {
    if (c.name == name) return c;
  }
  throw std::logic_error("no class " + name);
}

// Ids after the merge: 0 chat (runs first), 1 bulk (waits), 2 chat (waits, arrived later).
testing::FleetRun run_two_classes(const TempDir& dir, const std::string& queue_policy) {
  const std::string chat = dir.write_trace(
      "chat.jsonl", {make_request(0, 0.0, 2000, 200), make_request(1, 0.002, 100, 10)});
  const std::string bulk = dir.write_trace("bulk.jsonl", {make_request(0, 0.001, 100, 10)});
  return run_fleet_scenario(
      scenario_from({{"workloads", {trace_workload(chat, "chat"), trace_workload(bulk, "bulk")}},
                     {"priorities", {{"chat", 0}, {"bulk", 10}}},
                     {"fleet", {{"pools", {one_seq_pool(queue_policy)}}}}},
                    dir.path().string()));
}

TEST(PriorityScenario, MapSetsEachRequestsPriorityByClass) {
  TempDir dir("priority_map");
  const testing::FleetRun run = run_two_classes(dir, "priority");
  const std::vector<Request>& requests = run.result.table.requests;
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].priority, 0);
  EXPECT_EQ(requests[1].priority, 10);
  EXPECT_EQ(requests[2].priority, 0);
}

TEST(PriorityScenario, UrgentClassIsAdmittedBeforeAnEarlierLessUrgentOne) {
  TempDir dir("priority_order");
  const testing::FleetRun run = run_two_classes(dir, "priority");
  const std::vector<RequestRecord>& r = run.result.records;
  ASSERT_EQ(r.size(), 3u);
  for (const RequestRecord& record : r) EXPECT_EQ(record.status, RequestStatus::finished);
  // Both wait for request 0; the chat request (arrived 1 ms after the bulk one) goes first,
  // right when request 0 finishes, and the bulk one only after it.
  EXPECT_EQ(r[2].first_scheduled_ns, r[0].finish_ns);
  EXPECT_GT(r[1].first_scheduled_ns, r[2].first_scheduled_ns);
  EXPECT_EQ(r[1].first_scheduled_ns, r[2].finish_ns);
  EXPECT_EQ(r[0].num_preemptions, 0);  // waiting requests never preempt for the sequence limit
}

TEST(PriorityScenario, FcfsIgnoresTheMapAndKeepsArrivalOrder) {
  TempDir dir("priority_fcfs");
  const testing::FleetRun run = run_two_classes(dir, "fcfs");
  const std::vector<RequestRecord>& r = run.result.records;
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1].first_scheduled_ns, r[0].finish_ns);
  EXPECT_EQ(r[2].first_scheduled_ns, r[1].finish_ns);
}

TEST(PriorityScenario, FairShareAdmitsTheLessServedTenantAheadOfAFlood) {
  TempDir dir("fair_share_flood");
  std::vector<Request> flood;
  for (int i = 0; i < 5; ++i) flood.push_back(make_request(i, 0.0, 500, 20));
  const std::string a = dir.write_trace("a.jsonl", flood);
  const std::string b = dir.write_trace("b.jsonl", {make_request(0, 0.001, 500, 20)});
  auto run_with = [&](const std::string& queue_policy) {
    nlohmann::json wa = trace_workload(a, "chat");
    wa["tenant"] = "a";
    nlohmann::json wb = trace_workload(b, "chat");
    wb["tenant"] = "b";
    return run_fleet_scenario(scenario_from(
        {{"workloads", {wa, wb}}, {"fleet", {{"pools", {one_seq_pool(queue_policy)}}}}},
        dir.path().string()));
  };
  // Ids: 0-4 tenant a (t = 0), 5 tenant b (t = 1 ms).
  const testing::FleetRun fair = run_with("fair_share");
  const std::vector<RequestRecord>& r = fair.result.records;
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[5].first_scheduled_ns, r[0].finish_ns);  // b right after a's first request
  EXPECT_EQ(r[1].first_scheduled_ns, r[5].finish_ns);
  const testing::FleetRun fcfs = run_with("fcfs");
  EXPECT_EQ(fcfs.result.records[5].first_scheduled_ns, fcfs.result.records[4].finish_ns);
}

TEST(PriorityScenario, KeyNamingNoWorkloadsClassIsAnError) {
  TempDir dir("priority_bad_class");
  const std::string chat = dir.write_trace("chat.jsonl", {make_request(0, 0.0, 10, 10)});
  const nlohmann::json base = {{"workloads", {trace_workload(chat, "chat")}},
                               {"fleet", {{"pools", {one_seq_pool("priority")}}}}};
  nlohmann::json misspelt = base;
  misspelt["priorities"] = {{"chat", 0}, {"chta", 5}};
  try {
    scenario_from(misspelt, dir.path().string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "scenario.json: priorities.chta: no workload has slo_class \"chta\" (classes: chat)");
  }
  nlohmann::json too_large = base;
  too_large["priorities"] = {{"chat", 4294967296LL}};
  EXPECT_THROW(scenario_from(too_large, dir.path().string()), InputError);
}

// examples/hol/: chat beside 28,000-token reasoning prompts (README there).
testing::FleetRun run_hol_example(const std::string& file) {
  return run_fleet_scenario(
      load_scenario_file(std::string(TIDAL_SOURCE_DIR) + "/examples/hol/" + file));
}

TEST(PriorityScenario, HolExamplePriorityShortensChatTailButNotBelowTheLongPrefill) {
  const testing::FleetRun whole = run_hol_example("fcfs-continuous.json");
  const testing::FleetRun chunked = run_hol_example("chunked.json");
  const testing::FleetRun priority = run_hol_example("chunked-priority.json");
  const testing::FleetRun fair = run_hol_example("chunked-fair-share.json");
  const auto chat_p99 = [](const testing::FleetRun& run) {
    return class_named(run.metrics, "chat").ttft.p99;
  };
  EXPECT_LT(chat_p99(priority), chat_p99(chunked));
  EXPECT_LT(chat_p99(priority), chat_p99(whole));
  EXPECT_LT(chat_p99(priority), chat_p99(fair));
  // A whole 28,000-token prefill (about 1.07 s) still sits in chat's tail under every policy.
  for (const testing::FleetRun* run : {&whole, &chunked, &priority, &fair}) {
    EXPECT_GT(chat_p99(*run), 0.5);
    EXPECT_EQ(run->metrics.num_finished, run->metrics.num_requests);
  }
  // The reasoning tenant is what stalls the others: its prompts cause over 90% of the
  // fleet's head-of-line delay, with whole prompts and with 2,048-token chunks.
  for (const testing::FleetRun* run : {&whole, &chunked}) {
    double caused_by_reasoning = 0.0;
    double fleet_delay = 0.0;
    for (size_t i = 0; i < run->result.records.size(); ++i) {
      fleet_delay += run->result.records[i].hol_delay_s;
      if (run->result.table.requests[i].tenant == "reasoning") {
        caused_by_reasoning += run->result.records[i].hol_caused_s;
      }
    }
    EXPECT_GT(caused_by_reasoning, 0.9 * fleet_delay);
  }
}

}  // namespace
}  // namespace tidal::sim
