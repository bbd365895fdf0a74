// Model routing (sim/model_assignment.h): requests reach only pools of their model, the
// complexity router's picks and misroutes, by_model figures, and bad inputs.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "fleet_test_util.h"
#include "sim/model_assignment.h"
#include "sim/model_summary.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "sim/workload_loader.h"

namespace tidal::sim {
namespace {

using nlohmann::json;

json workload(const std::string& name, double rate) {
  return json{{"name", name},
              {"generator",
               {{"kind", "poisson"},
                {"rate", rate},
                {"duration_s", 60},
                {"prompt", {{"dist", "uniform"}, {"min", 100}, {"max", 400}}},
                {"output", {{"dist", "uniform"}, {"min", 20}, {"max", 80}}}}}};
}

// A small model on two L4 replicas and a large one on an H100, plus a third pool of the small
// model on an H100.
json two_model_fleet() {
  return json{
      {"pools",
       json::array(
           {{{"name", "small-l4"}, {"model", "llama-3-8b"}, {"gpu", "L4"}, {"num_replicas", 2}},
            {{"name", "large"},
             {"model", "llama-3-70b"},
             {"gpu", "H100-SXM"},
             {"tp", 4},
             {"num_replicas", 1}},
            {{"name", "small-h100"},
             {"model", "llama-3-8b"},
             {"gpu", "H100-SXM"},
             {"num_replicas", 1}}})}};
}

Scenario load(const json& root) {
  return parse_scenario(root, "models.json", "");
}

TEST(ModelRouting, RequestsReachOnlyPoolsOfTheirModel) {
  json small = workload("chat", 4);
  small["model"] = "llama-3-8b";
  json large = workload("code", 2);
  large["model"] = "llama-3-70b";
  const json root{{"seed", 3}, {"workloads", {small, large}}, {"fleet", two_model_fleet()}};
  testing::FleetRun run = testing::run_fleet_scenario(load(root));
  const RunResult& r = run.result;
  ASSERT_TRUE(r.models.active());
  ASSERT_EQ(r.models.models, (std::vector<std::string>{"llama-3-8b", "llama-3-70b"}));
  int64_t num_small = 0;
  int64_t num_large = 0;
  for (size_t i = 0; i < r.table.requests.size(); ++i) {
    const RequestRecord& rec = r.records[i];
    ASSERT_EQ(rec.status, RequestStatus::finished);
    const int32_t pool = r.replicas[static_cast<size_t>(rec.replica)].pool;
    EXPECT_EQ(run.scenario.pools[static_cast<size_t>(pool)].model, r.table.requests[i].model);
    (r.table.requests[i].model == "llama-3-8b" ? num_small : num_large) += 1;
  }
  EXPECT_GT(num_small, 150);
  EXPECT_GT(num_large, 70);
  const auto by_model = model_summary_json(run.scenario, r, run.metrics);
  ASSERT_EQ(by_model["models"].size(), 2u);
  EXPECT_EQ(by_model["models"][0]["num_requests"].get<int64_t>(), num_small);
  EXPECT_EQ(by_model["models"][1]["num_requests"].get<int64_t>(), num_large);
  EXPECT_EQ(by_model["models"][0]["pools"], (nlohmann::ordered_json{"small-l4", "small-h100"}));
  // Dollars per model are its pools' dollars.
  EXPECT_DOUBLE_EQ(by_model["models"][1]["dollars"].get<double>(), run.metrics.pools[1].dollars);
  EXPECT_DOUBLE_EQ(by_model["models"][0]["dollars"].get<double>(),
                   run.metrics.pools[0].dollars + run.metrics.pools[2].dollars);
  EXPECT_TRUE(by_model["models"][0]["quality_kept"].is_null());
}

TEST(ModelRouting, HeldRequestsOfOneModelDoNotHoldUpAnother) {
  // With max_inputs 1 the large pool takes one request at a time: its requests wait at the
  // router, and the small model's requests run exactly as when nothing waits there.
  json small = workload("chat", 4);
  small["model"] = "llama-3-8b";
  json large = workload("code", 8);
  large["model"] = "llama-3-70b";
  const json root{{"seed", 5}, {"workloads", {small, large}}, {"fleet", two_model_fleet()}};
  json held_root = root;
  held_root["fleet"]["pools"][1]["autoscaler"] = {{"policy", "target_concurrency"},
                                                  {"target_inputs", 1},
                                                  {"max_inputs", 1},
                                                  {"min_replicas", 1},
                                                  {"max_replicas", 1}};
  testing::FleetRun free_run = testing::run_fleet_scenario(load(root));
  testing::FleetRun held_run = testing::run_fleet_scenario(load(held_root));
  const RunResult& a = free_run.result;
  const RunResult& b = held_run.result;
  ASSERT_EQ(a.table.requests.size(), b.table.requests.size());
  double free_ttft_s = 0.0;
  double held_ttft_s = 0.0;
  for (size_t i = 0; i < a.table.requests.size(); ++i) {
    ASSERT_EQ(b.records[i].status, RequestStatus::finished);
    if (a.table.requests[i].model == "llama-3-8b") {
      EXPECT_EQ(a.records[i].replica, b.records[i].replica) << i;
      EXPECT_EQ(a.records[i].first_scheduled_ns, b.records[i].first_scheduled_ns) << i;
      EXPECT_EQ(a.records[i].first_token_ns, b.records[i].first_token_ns) << i;
      EXPECT_EQ(a.records[i].finish_ns, b.records[i].finish_ns) << i;
    } else {
      free_ttft_s += static_cast<double>(a.records[i].first_token_ns - a.records[i].arrival_ns);
      held_ttft_s += static_cast<double>(b.records[i].first_token_ns - b.records[i].arrival_ns);
    }
  }
  EXPECT_GT(held_ttft_s, 2.0 * free_ttft_s);
}

void expect_error(const json& root, const std::string& what) {
  try {
    Scenario s = load(root);
    RequestTable table = load_workloads(s);
    (void)assign_models(s, table);
    FAIL() << "expected an InputError containing " << what;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

json complexity_router(double misroute_rate) {
  return json{{"policy", "complexity"},
              {"misroute_rate", misroute_rate},
              {"models",
               {{{"model", "llama-3-70b"}, {"max_complexity", 1.0}},
                {{"model", "llama-3-8b"}, {"max_complexity", 0.7}}}}};
}

TEST(ModelRouting, ComplexityRouterPicksTheSmallestFitAndMisroutesAtItsRate) {
  json w = workload("chat", 20);
  w["complexity"] = {{"dist", "uniform"}, {"min", 0.0}, {"max", 1.0}};
  json root{{"seed", 7},
            {"workloads", {w}},
            {"fleet", two_model_fleet()},
            {"model_router", complexity_router(0.0)}};
  {
    RequestTable table = load_workloads(load(root));
    const ModelAssignment a = assign_models(load(root), table);
    ASSERT_EQ(a.quality_kept.size(), table.requests.size());
    for (size_t i = 0; i < table.requests.size(); ++i) {
      const Request& r = table.requests[i];
      ASSERT_TRUE(r.complexity);
      EXPECT_EQ(r.model, *r.complexity <= 0.7 ? "llama-3-8b" : "llama-3-70b");
      EXPECT_EQ(a.quality_kept[i], 1);
    }
  }
  root["model_router"] = complexity_router(0.2);
  RequestTable table = load_workloads(load(root));
  const ModelAssignment a = assign_models(load(root), table);
  int64_t num_misrouted = 0;
  int64_t num_not_kept = 0;
  for (size_t i = 0; i < table.requests.size(); ++i) {
    const Request& r = table.requests[i];
    const bool fits_small = *r.complexity <= 0.7;
    num_misrouted += (r.model == "llama-3-8b") != fits_small ? 1 : 0;
    // Only a hard request sent to the small model loses quality.
    EXPECT_EQ(a.quality_kept[i], !fits_small && r.model == "llama-3-8b" ? 0 : 1);
    num_not_kept += a.quality_kept[i] == 0 ? 1 : 0;
  }
  const double share =
      static_cast<double>(num_misrouted) / static_cast<double>(a.of_request.size());
  EXPECT_NEAR(share, 0.2, 0.04);
  EXPECT_GT(num_not_kept, 0);
  testing::FleetRun run = testing::run_fleet_scenario(load(root));
  const auto by_model = model_summary_json(run.scenario, run.result, run.metrics);
  EXPECT_EQ(by_model["policy"], "complexity");
  EXPECT_NEAR(by_model["quality_kept"].get<double>(),
              1.0 - static_cast<double>(num_not_kept) / static_cast<double>(a.of_request.size()),
              1e-12);
  EXPECT_DOUBLE_EQ(by_model["models"][1]["quality_kept"].get<double>(), 1.0);  // the 70B
}

json cascade_router() {
  return json{{"policy", "cascade"},
              {"models",
               {{{"model", "llama-3-8b"}, {"max_complexity", 0.6}},
                {{"model", "llama-3-70b"}, {"max_complexity", 1.0}}}}};
}

TEST(ModelRouting, CascadeRunsEscalatedRequestsTwiceAndBillsBothRuns) {
  json w = workload("chat", 6);
  w["complexity"] = {{"dist", "uniform"}, {"min", 0.0}, {"max", 1.0}};
  const json root{{"seed", 9},
                  {"workloads", {w}},
                  {"fleet", two_model_fleet()},
                  {"model_router", cascade_router()}};
  testing::FleetRun run = testing::run_fleet_scenario(load(root));
  const RunResult& r = run.result;
  // The same requests with no second run: each on the small model only.
  json alone_root = root;
  alone_root["model_router"] = json{{"policy", "fixed"}};
  alone_root["workloads"][0]["model"] = "llama-3-8b";
  testing::FleetRun alone = testing::run_fleet_scenario(load(alone_root));
  ASSERT_EQ(r.table.requests.size(), alone.result.table.requests.size());
  int64_t num_escalated = 0;
  int64_t tokens_on_large = 0;
  for (size_t i = 0; i < r.table.requests.size(); ++i) {
    const Request& req = r.table.requests[i];
    const RequestRecord& rec = r.records[i];
    ASSERT_EQ(rec.status, RequestStatus::finished) << i;
    const bool hard = *req.complexity > 0.6;
    EXPECT_EQ(r.models.escalated[i], hard ? 1 : 0) << i;
    const int32_t pool = r.replicas[static_cast<size_t>(rec.replica)].pool;
    EXPECT_EQ(run.scenario.pools[static_cast<size_t>(pool)].model,
              hard ? "llama-3-70b" : "llama-3-8b")
        << i;
    EXPECT_EQ(rec.num_output_tokens_done, req.output_tokens) << i;
    if (!hard) continue;
    ++num_escalated;
    tokens_on_large += req.prompt_tokens + req.output_tokens;
    // Latency is the sum: the second run's first token comes after the whole first answer.
    const RequestRecord& first = alone.result.records[i];
    EXPECT_GT(rec.first_token_ns, first.finish_ns) << i;
    EXPECT_GT(rec.finish_ns - rec.arrival_ns, first.finish_ns - first.arrival_ns) << i;
  }
  EXPECT_GT(num_escalated, 100);
  const auto by_model = model_summary_json(run.scenario, r, run.metrics);
  EXPECT_EQ(by_model["policy"], "cascade");
  EXPECT_EQ(by_model["num_escalated"].get<int64_t>(), num_escalated);
  EXPECT_EQ(by_model["models"][0]["num_escalated"].get<int64_t>(), num_escalated);
  EXPECT_EQ(by_model["models"][1]["num_requests"].get<int64_t>(), num_escalated);
  EXPECT_EQ(by_model["models"][1]["num_input_tokens"].get<int64_t>() +
                by_model["models"][1]["num_output_tokens"].get<int64_t>(),
            tokens_on_large);
  // Every request ran on the small model first: its token counts are all requests'.
  int64_t all_tokens = 0;
  for (const Request& req : r.table.requests) all_tokens += req.prompt_tokens + req.output_tokens;
  EXPECT_EQ(by_model["models"][0]["num_input_tokens"].get<int64_t>() +
                by_model["models"][0]["num_output_tokens"].get<int64_t>(),
            all_tokens);
  EXPECT_DOUBLE_EQ(by_model["quality_kept"].get<double>(), 1.0);
  // Both runs are billed: the large pool served the escalated runs.
  EXPECT_GT(r.replicas[2].num_steps, 0);  // the small H100 pool ran first answers
  EXPECT_GT(run.metrics.pools[1].dollars, 0.0);
  EXPECT_GT(r.replicas[2].busy_ns, 0);

  // An escalate share instead of complexity: that share, seeded, and no quality figure.
  json shared = root;
  shared["workloads"][0].erase("complexity");
  shared["model_router"]["escalate"] = 0.3;
  RequestTable table = load_workloads(load(shared));
  const ModelAssignment a = assign_models(load(shared), table);
  int64_t num_escalating = 0;
  for (size_t i = 0; i < table.requests.size(); ++i) num_escalating += a.escalates(i) ? 1 : 0;
  EXPECT_NEAR(static_cast<double>(num_escalating) / static_cast<double>(table.requests.size()), 0.3,
              0.04);
  EXPECT_TRUE(a.quality_kept.empty());
}

// An edge site with the small model and a GPU region with both, for private requests.
json edge_fleet(json pools) {
  return json{{"network",
               {{"regions",
                 {{{"name", "users"}, {"kind", "client"}},
                  {{"name", "edge"}, {"kind", "edge"}},
                  {{"name", "cloud"}, {"kind", "gpu"}}}},
                {"links",
                 {{{"from", "users"}, {"to", "edge"}, {"latency_ms", 5}},
                  {{"from", "edge"}, {"to", "cloud"}, {"latency_ms", 40}}}}}},
              {"fleet", {{"pools", pools}}}};
}

json edge_pools() {
  return json::array({{{"name", "edge-8b"},
                       {"model", "llama-3-8b"},
                       {"gpu", "L4"},
                       {"num_replicas", 1},
                       {"region", "edge"}},
                      {{"name", "cloud-8b"},
                       {"model", "llama-3-8b"},
                       {"gpu", "H100-SXM"},
                       {"num_replicas", 2},
                       {"region", "cloud"}},
                      {{"name", "cloud-70b"},
                       {"model", "llama-3-70b"},
                       {"gpu", "H100-SXM"},
                       {"tp", 4},
                       {"num_replicas", 1},
                       {"region", "cloud"}}});
}

TEST(ModelRouting, PrivateRequestsNeverLeaveEdgeRegions) {
  json w = workload("chat", 8);
  w["region"] = "users";
  w["private_share"] = 0.3;
  w["complexity"] = {{"dist", "uniform"}, {"min", 0.0}, {"max", 1.0}};
  json root = edge_fleet(edge_pools());
  root["seed"] = 4;
  root["workloads"] = {w};
  // Routing by load alone, not by distance: the edge L4 alone serves private requests under
  // every policy, while public ones go wherever load sends them.
  root["router"] = {{"prefer_nearest_region", false}};
  for (const json& router :
       {json{{"policy", "sensitive_local"}}, complexity_router(0.1), cascade_router()}) {
    root["model_router"] = router;
    testing::FleetRun run = testing::run_fleet_scenario(load(root));
    const RunResult& r = run.result;
    int64_t num_private = 0;
    int64_t num_public_in_cloud = 0;
    for (size_t i = 0; i < r.table.requests.size(); ++i) {
      const RequestRecord& rec = r.records[i];
      ASSERT_EQ(rec.status, RequestStatus::finished) << router << " " << i;
      const int32_t pool = r.replicas[static_cast<size_t>(rec.replica)].pool;
      if (r.table.requests[i].is_private) {
        ++num_private;
        EXPECT_EQ(pool, 0) << router << " " << i;
        // A cascade does not escalate it to the cloud's 70B.
        if (!r.models.escalated.empty()) {
          EXPECT_EQ(r.models.escalated[i], 0);
        }
      } else {
        num_public_in_cloud += pool != 0 ? 1 : 0;
      }
    }
    EXPECT_NEAR(static_cast<double>(num_private) / static_cast<double>(r.table.requests.size()),
                0.3, 0.05)
        << router;
    EXPECT_GT(num_public_in_cloud, 0) << router;
    const auto by_model = model_summary_json(run.scenario, r, run.metrics);
    EXPECT_EQ(by_model["num_private"].get<int64_t>(), num_private);
  }
  // Under sensitive_local a private request asking for the 70B gets the local 8B; under fixed
  // it is an error before the run.
  root["workloads"][0]["model"] = "llama-3-70b";
  root["workloads"][0].erase("complexity");
  root["model_router"] = json{{"policy", "sensitive_local"}};
  RequestTable table = load_workloads(load(root));
  (void)assign_models(load(root), table);
  for (const Request& req : table.requests) {
    EXPECT_EQ(req.model, req.is_private ? "llama-3-8b" : "llama-3-70b");
  }
  root["model_router"] = json{{"policy", "fixed"}};
  expect_error(root, "is private, and no pool in an edge region serves model \"llama-3-70b\"");
}

TEST(ModelRouting, WithoutModelKeysNothingChanges) {
  const json root{{"seed", 3}, {"workloads", {workload("chat", 4)}}, {"fleet", two_model_fleet()}};
  testing::FleetRun run = testing::run_fleet_scenario(load(root));
  EXPECT_FALSE(run.result.models.active());
  EXPECT_TRUE(model_summary_json(run.scenario, run.result, run.metrics).is_null());
  EXPECT_FALSE(scenario_to_json(run.scenario).contains("model_router"));
}

TEST(ModelRouting, BadInputsAreOneClearError) {
  json w = workload("chat", 4);
  w["model"] = "mistral-7b";
  expect_error(json{{"workloads", {w}}, {"fleet", two_model_fleet()}},
               "models.json: workloads[0].model: \"mistral-7b\" is served by no pool (pools "
               "serve: llama-3-8b, llama-3-70b)");
  json router = complexity_router(0.0);
  router["models"][1]["max_complexity"] = 1.5;
  expect_error(json{{"workloads", {workload("chat", 4)}},
                    {"fleet", two_model_fleet()},
                    {"model_router", router}},
               "model_router.models[1].max_complexity: must be in [0, 1], got 1.5");
  expect_error(json{{"workloads", {workload("chat", 4)}},
                    {"fleet", two_model_fleet()},
                    {"model_router", {{"policy", "smallest"}}}},
               "model_router.policy: unknown policy \"smallest\"");
  expect_error(json{{"workloads", {workload("chat", 4)}},
                    {"fleet", two_model_fleet()},
                    {"model_router", complexity_router(0.0)}},
               "workloads[0]: request 0 carries no complexity");
  json fixed = complexity_router(0.0);
  fixed["models"][0]["model"] = "qwen";
  expect_error(json{{"workloads", {workload("chat", 4)}},
                    {"fleet", two_model_fleet()},
                    {"model_router", fixed}},
               "model_router.models[0].model: \"qwen\" is served by no pool");
  json one = cascade_router();
  one["models"].erase(1);
  expect_error(json{{"workloads", {workload("chat", 4)}},
                    {"fleet", two_model_fleet()},
                    {"model_router", one}},
               "model_router.models: the cascade policy needs exactly two models");
  json share = cascade_router();
  share["escalate"] = 1.2;
  expect_error(json{{"workloads", {workload("chat", 4)}},
                    {"fleet", two_model_fleet()},
                    {"model_router", share}},
               "model_router.escalate: must be in [0, 1], got 1.2");
  expect_error(json{{"workloads", {workload("chat", 4)}},
                    {"fleet", two_model_fleet()},
                    {"model_router", cascade_router()}},
               "request 0 carries no complexity; give the workload a \"complexity\" "
               "distribution, or model_router an \"escalate\" share");
  json bad_share = workload("chat", 4);
  bad_share["private_share"] = -0.5;
  expect_error(json{{"workloads", {bad_share}}, {"fleet", two_model_fleet()}},
               "workloads[0].private_share: must be in [0, 1], got -0.5");
  // Private requests with no edge region at all.
  json private_work = workload("chat", 4);
  private_work["private_share"] = 1.0;
  expect_error(json{{"workloads", {private_work}}, {"fleet", two_model_fleet()}},
               "request 0 is private, and no pool in an edge region serves");
}

}  // namespace
}  // namespace tidal::sim
