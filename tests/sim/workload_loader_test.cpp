#include "sim/workload_loader.h"

#include <cmath>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::make_request;
using testing::scenario_from;
using testing::TempDir;

TEST(WorkloadLoader, ScalesMergesAndRenumbers) {
  TempDir dir("loader_merge");
  std::vector<Request> a = {make_request(0, 0.0, 100, 10), make_request(1, 2.0, 200, 20),
                            make_request(2, 4.0, 300, 30)};
  a[1].tenant = "own-tenant";
  std::vector<Request> b = {make_request(0, 0.0, 50, 5), make_request(1, 1.0, 60, 6)};
  dir.write_trace("a.jsonl", a);
  dir.write_trace("b.jsonl", b);
  const nlohmann::json j = {{"workloads",
                             {{{"name", "a"},
                               {"trace", {{"path", "a.jsonl"}}},
                               {"time_scale", 2.0},
                               {"rate_scale", 4.0},
                               {"slo_class", "x"}},
                              {{"name", "b"},
                               {"trace", {{"path", "b.jsonl"}}},
                               {"start_s", 0.5},
                               {"length_scale", 1.5},
                               {"tenant", "t-b"}}}},
                            {"fleet", {{"pools", {h100_pool(1)}}}}};
  const RequestTable t = load_workloads(scenario_from(j, dir.path().string()));
  // a arrives at 0, 1, 2 (x 2 / 4); b at 0.5, 1.5.
  ASSERT_EQ(t.requests.size(), 5u);
  const std::vector<double> arrivals = {0.0, 0.5, 1.0, 1.5, 2.0};
  const std::vector<int32_t> workloads = {0, 1, 0, 1, 0};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(t.requests[i].id, static_cast<int64_t>(i));
    EXPECT_DOUBLE_EQ(t.requests[i].arrival_s, arrivals[i]);
    EXPECT_EQ(t.arrival_ns[i], static_cast<int64_t>(arrivals[i] * 1e9));
    EXPECT_EQ(t.workload[i], workloads[i]);
  }
  EXPECT_EQ(t.requests[1].prompt_tokens, 75);  // 50 x 1.5
  EXPECT_EQ(t.requests[1].output_tokens, 8);   // 5 x 1.5 = 7.5, rounded half away from zero
  EXPECT_EQ(t.requests[2].prompt_tokens, 200);
  EXPECT_EQ(t.requests[2].tenant, "own-tenant");  // kept: workload a sets no tenant
  EXPECT_EQ(t.requests[0].tenant, "default");
  EXPECT_EQ(t.requests[1].tenant, "t-b");
  EXPECT_EQ(t.requests[0].slo_class, "x");
  EXPECT_EQ(t.requests[1].slo_class, "default");
  // slo_classes sorted: default (0), x (1).
  EXPECT_EQ(t.slo_class[0], 1);
  EXPECT_EQ(t.slo_class[1], 0);
  EXPECT_EQ(t.num_source_requests, (std::vector<int64_t>{3, 2}));
}

TEST(WorkloadLoader, DurationCutsArrivalsAndTheirDependents) {
  TempDir dir("loader_deps");
  std::vector<Request> a = {make_request(10, 0.0, 100, 10), make_request(11, 1.0, 100, 10),
                            make_request(12, 5.0, 100, 10), make_request(13, 6.0, 100, 10)};
  a[1].deps = {10};
  a[3].deps = {11, 12};  // 12 is cut, so 13 goes too
  dir.write_trace("a.jsonl", a);
  const nlohmann::json j = {{"duration_s", 5.0},
                            {"workloads", {{{"trace", {{"path", "a.jsonl"}}}}}},
                            {"fleet", {{"pools", {h100_pool(1)}}}}};
  const RequestTable t = load_workloads(scenario_from(j, dir.path().string()));
  ASSERT_EQ(t.requests.size(), 2u);
  EXPECT_EQ(t.requests[1].deps, (std::vector<int64_t>{0}));  // renumbered from 10
  EXPECT_EQ(t.num_source_requests[0], 4);
}

TEST(WorkloadLoader, OneWorkloadOutOfOrderWithCutsKeepsEveryRequestOnce) {
  TempDir dir("loader_one");
  // Arrivals out of order, the cut ones (>= 4 s) between kept ones; prompt lengths name them.
  const std::vector<double> arrivals = {3.0, 7.0, 1.0, 5.0, 2.0, 0.5, 9.0, 2.5};
  std::vector<Request> a;
  for (size_t i = 0; i < arrivals.size(); ++i) {
    a.push_back(
        make_request(static_cast<int64_t>(i), arrivals[i], 100 + static_cast<int64_t>(i), 10));
  }
  a[0].deps = {2};  // arrives at 3 s after request 2 (1 s): renumbered with it
  dir.write_trace("a.jsonl", a);
  const nlohmann::json j = {{"duration_s", 4.0},
                            {"workloads", {{{"trace", {{"path", "a.jsonl"}}}}}},
                            {"fleet", {{"pools", {h100_pool(1)}}}}};
  const RequestTable t = load_workloads(scenario_from(j, dir.path().string()));
  // Kept in arrival order: 0.5 (5), 1 (2), 2 (4), 2.5 (7), 3 (0).
  const std::vector<int64_t> prompts = {105, 102, 104, 107, 100};
  ASSERT_EQ(t.requests.size(), prompts.size());
  for (size_t k = 0; k < prompts.size(); ++k) {
    EXPECT_EQ(t.requests[k].id, static_cast<int64_t>(k));
    EXPECT_EQ(t.requests[k].prompt_tokens, prompts[k]);
    EXPECT_EQ(t.arrival_ns[k], std::llround(t.requests[k].arrival_s * 1e9));
  }
  EXPECT_EQ(t.requests[4].deps, (std::vector<int64_t>{1}));
  EXPECT_EQ(t.num_source_requests, (std::vector<int64_t>{8}));
}

TEST(WorkloadLoader, GeneratorsAreSeededFromTheScenario) {
  const nlohmann::json j = {
      {"seed", 5},
      {"workloads", {{{"generator", {{"kind", "poisson"}, {"rate", 5.0}, {"duration_s", 20}}}}}},
      {"fleet", {{"pools", {h100_pool(1)}}}}};
  Scenario s = scenario_from(j);
  const RequestTable first = load_workloads(s);
  const RequestTable again = load_workloads(s);
  EXPECT_EQ(first.requests, again.requests);
  s.set_seed(6);
  const RequestTable other = load_workloads(s);
  EXPECT_NE(first.requests, other.requests);
  EXPECT_GT(first.requests.size(), 50u);
}

TEST(WorkloadLoader, BadGeneratorSpecNamesTheWorkload) {
  const nlohmann::json j = {{"workloads", {{{"generator", {{"kind", "poisson"}}}}}},
                            {"fleet", {{"pools", {h100_pool(1)}}}}};
  try {
    load_workloads(scenario_from(j));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 38), "scenario.json: workloads[0].generator.");
  }
}

TEST(WorkloadLoader, MissingTraceFile) {
  const nlohmann::json j = {{"workloads", {{{"trace", {{"path", "/nonexistent/t.csv"}}}}}},
                            {"fleet", {{"pools", {h100_pool(1)}}}}};
  EXPECT_THROW(load_workloads(scenario_from(j)), InputError);
}

}  // namespace
}  // namespace tidal::sim
