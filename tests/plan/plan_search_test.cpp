// The plan search end to end: the same optimum as an exhaustive loop written here, invalid
// combinations recorded with their reason, identical output for 1 and 4 threads and for a
// search resumed after a kill, and capacity mode by bisection.
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "plan/plan_runner.h"
#include "sim/metrics.h"
#include "sim/simulator.h"
#include "tests/plan/plan_fixture.h"

namespace tidal::plan {
namespace {

namespace fs = std::filesystem;

struct Files {
  std::string scenario, space;
};

Files write_inputs(const fs::path& dir, const nlohmann::json& space) {
  return Files{testing::write_json(dir / "scenario.json", testing::small_scenario()),
               testing::write_json(dir / "space.json", space)};
}

const nlohmann::json kSpace = nlohmann::json::parse(R"({
  "dimensions": {
    "gpu": ["H100-SXM", "A100-80GB"],
    "tp": [1, 3],
    "scheduler.policy": ["static", "continuous"],
    "num_replicas": [1, 2, 3]
  }})");

PlanOptions options_for(const Files& files, const fs::path& out, int num_threads) {
  PlanOptions o;
  o.scenario_path = files.scenario;
  o.space_path = files.space;
  o.slo = {"p99_ttft<=0.5s"};
  o.out_dir = out.string();
  o.num_threads = num_threads;
  o.progress = false;
  return o;
}

TEST(PlanSearch, CheapestEqualsAnExhaustiveLoop) {
  const ScratchFolder scratch(testing::kScratch, "exhaustive");
  const fs::path& dir = scratch.path();
  const Files files = write_inputs(dir, kSpace);
  const PlanRun run = run_plan(options_for(files, dir / "out", 2));
  ASSERT_EQ(run.outcome.results.size(), 24u);

  // The exhaustive loop: every combination simulated here, independently of plan/.
  struct Best {
    double dollars = 0, p99 = 0;
    nlohmann::json config;
    bool found = false;
  } best;
  int num_invalid = 0, num_feasible = 0, num_missed = 0;
  for (const char* gpu : {"H100-SXM", "A100-80GB"}) {
    for (int tp : {1, 3}) {
      for (const char* policy : {"static", "continuous"}) {
        for (int replicas : {1, 2, 3}) {
          nlohmann::json s = testing::small_scenario();
          nlohmann::json& pool = s["fleet"]["pools"][0];
          pool["gpu"] = gpu;
          pool["tp"] = tp;
          pool["scheduler"]["policy"] = policy;
          pool["num_replicas"] = replicas;
          sim::Scenario scenario;
          try {
            scenario = sim::parse_scenario(s, files.scenario, dir.string());
          } catch (const InputError&) {
            ++num_invalid;
            continue;
          }
          sim::RunResult result = sim::run_scenario(scenario);
          const sim::RunMetrics m = sim::compute_metrics(scenario, result);
          if (m.ttft.count == 0 || m.ttft.p99 > 0.5) {
            ++num_missed;
            continue;
          }
          ++num_feasible;
          if (!best.found || m.dollars < best.dollars ||
              (m.dollars == best.dollars && m.ttft.p99 < best.p99)) {
            best = Best{m.dollars, m.ttft.p99,
                        nlohmann::json{{"gpu", gpu},
                                       {"tp", tp},
                                       {"scheduler.policy", policy},
                                       {"num_replicas", replicas}},
                        true};
          }
        }
      }
    }
  }
  // The space must be a real test: some of each kind.
  EXPECT_EQ(num_invalid, 12);
  EXPECT_GT(num_feasible, 0);
  EXPECT_GT(num_missed, 0);

  ASSERT_TRUE(best.found);
  ASSERT_TRUE(run.outcome.cheapest.has_value());
  const CandidateResult& cheapest = run.outcome.results[*run.outcome.cheapest];
  EXPECT_EQ(nlohmann::json::parse(cheapest.config.dump()), best.config);
  EXPECT_DOUBLE_EQ(*cheapest.dollars, best.dollars);
  EXPECT_DOUBLE_EQ(*cheapest.p99_ttft_s, best.p99);
  // Named by its settings, with the pool's setup recorded.
  const int tp = best.config["tp"].get<int>(), replicas = best.config["num_replicas"].get<int>();
  EXPECT_EQ(cheapest.name, std::to_string(tp * replicas) + "x" +
                               best.config["gpu"].get<std::string>() + " tp" + std::to_string(tp) +
                               " bf16 " + best.config["scheduler.policy"].get<std::string>());
  EXPECT_EQ(cheapest.setup.num_replicas, replicas);
  EXPECT_EQ(*run.outcome.rank[*run.outcome.cheapest], 1);

  int plan_invalid = 0, plan_feasible = 0;
  for (const CandidateResult& r : run.outcome.results) {
    if (r.status == "invalid") {
      ++plan_invalid;
      EXPECT_EQ(r.config["tp"], 3);
      EXPECT_NE(r.reason.find("fleet.pools[0]"), std::string::npos) << r.reason;
      EXPECT_FALSE(r.dollars.has_value());
      EXPECT_NE(r.name.find(" tp3 "), std::string::npos) << r.name;  // its own TP, not the pool's
    }
    plan_feasible += r.status == "feasible";
  }
  EXPECT_EQ(plan_invalid, num_invalid);
  EXPECT_EQ(plan_feasible, num_feasible);
  // The frontier is non-dominated and sorted by cost.
  for (size_t k = 1; k < run.outcome.frontier.size(); ++k) {
    const CandidateResult& a = run.outcome.results[run.outcome.frontier[k - 1]];
    const CandidateResult& b = run.outcome.results[run.outcome.frontier[k]];
    EXPECT_LE(*a.dollars, *b.dollars);
    EXPECT_GT(*a.p99_ttft_s, *b.p99_ttft_s);
  }
  EXPECT_TRUE(fs::exists(dir / "out" / "plan.json"));
  EXPECT_TRUE(fs::exists(dir / "out" / "plan.csv"));
}

// Candidates are simulated without ITL samples unless the SLO bounds ITL; one that does is
// judged on the same ITL as a run made here.
TEST(PlanSearch, AnItlSloIsJudgedOnTheRunsItl) {
  const ScratchFolder scratch(testing::kScratch, "itl_slo");
  const fs::path& dir = scratch.path();
  const Files files = write_inputs(
      dir, nlohmann::json::parse(R"({"dimensions": {"gpu": ["H100-SXM", "A100-80GB"]}})"));
  std::vector<double> p99_itl;
  for (const char* gpu : {"H100-SXM", "A100-80GB"}) {
    nlohmann::json s = testing::small_scenario();
    s["fleet"]["pools"][0]["gpu"] = gpu;
    const sim::Scenario scenario = sim::parse_scenario(s, files.scenario, dir.string());
    sim::RunResult result = sim::run_scenario(scenario);
    p99_itl.push_back(sim::compute_metrics(scenario, result).itl.p99);
  }
  ASSERT_LT(p99_itl[0], p99_itl[1]);  // H100 decodes faster
  PlanOptions o = options_for(files, dir / "out", 1);
  o.slo = {fmt::format("p99_itl<={}", std::sqrt(p99_itl[0] * p99_itl[1]))};
  const PlanRun run = run_plan(o);
  ASSERT_EQ(run.outcome.results.size(), 2u);
  EXPECT_EQ(run.outcome.results[0].status, "feasible") << run.outcome.results[0].reason;
  EXPECT_EQ(run.outcome.results[1].status, "slo_missed");
  EXPECT_NE(run.outcome.results[1].reason.find("p99_itl = "), std::string::npos)
      << run.outcome.results[1].reason;
}

TEST(PlanSearch, OneAndFourThreadsGiveIdenticalOutput) {
  const ScratchFolder scratch(testing::kScratch, "threads");
  const fs::path& dir = scratch.path();
  const Files files = write_inputs(dir, kSpace);
  run_plan(options_for(files, dir / "t1", 1));
  run_plan(options_for(files, dir / "t4", 4));
  EXPECT_EQ(testing::read_text(dir / "t1" / "plan.json"),
            testing::read_text(dir / "t4" / "plan.json"));
  EXPECT_EQ(testing::read_text(dir / "t1" / "plan.csv"),
            testing::read_text(dir / "t4" / "plan.csv"));
}

TEST(PlanSearch, ResumedSearchEqualsUninterrupted) {
  const ScratchFolder scratch(testing::kScratch, "resume");
  const fs::path& dir = scratch.path();
  const Files files = write_inputs(dir, kSpace);
  run_plan(options_for(files, dir / "full", 3));
  // A killed search: the first 7 results and half of the 8th line.
  const std::string all = testing::read_text(dir / "full" / "results.jsonl");
  size_t cut = 0;
  for (int line = 0; line < 7; ++line) cut = all.find('\n', cut) + 1;
  const size_t next_end = all.find('\n', cut);
  fs::create_directories(dir / "resumed");
  std::ofstream(dir / "resumed" / "results.jsonl", std::ios::binary)
      << all.substr(0, cut + (next_end - cut) / 2);
  const PlanRun resumed = run_plan(options_for(files, dir / "resumed", 2));
  EXPECT_EQ(resumed.num_resumed, 7);
  EXPECT_EQ(resumed.num_evaluated, 17);
  EXPECT_EQ(testing::read_text(dir / "full" / "plan.json"),
            testing::read_text(dir / "resumed" / "plan.json"));
  EXPECT_EQ(testing::read_text(dir / "full" / "plan.csv"),
            testing::read_text(dir / "resumed" / "plan.csv"));
  // A rerun of a finished search evaluates nothing.
  const PlanRun again = run_plan(options_for(files, dir / "resumed", 2));
  EXPECT_EQ(again.num_evaluated, 0);
  EXPECT_EQ(testing::read_text(dir / "full" / "plan.json"),
            testing::read_text(dir / "resumed" / "plan.json"));
  // Other inputs refuse the folder.
  PlanOptions other = options_for(files, dir / "resumed", 2);
  other.slo = {"p99_ttft<=0.4s"};
  EXPECT_THROW(run_plan(other), InputError);
}

TEST(PlanSearch, CapacityModeFindsTheLargestRateScaleMeetingTheSlo) {
  const ScratchFolder scratch(testing::kScratch, "capacity");
  const fs::path& dir = scratch.path();
  const Files files = write_inputs(dir, nlohmann::json::parse(R"({
    "dimensions": {"num_replicas": [1, 2]},
    "capacity": {"min_rate_scale": 0.5, "max_rate_scale": 8, "tolerance": 0.05}})"));
  PlanOptions o = options_for(files, dir / "out", 2);
  o.mode = "capacity";
  const PlanRun run = run_plan(o);
  ASSERT_EQ(run.outcome.results.size(), 2u);
  EXPECT_EQ(run.outcome.objective, "dollars_per_1m_tokens");
  const CandidateResult& one = run.outcome.results[0];
  const CandidateResult& two = run.outcome.results[1];
  ASSERT_EQ(one.status, "feasible");
  ASSERT_EQ(two.status, "feasible");
  EXPECT_GT(*two.rate_scale, *one.rate_scale);
  EXPECT_LE(*one.p99_ttft_s, 0.5);
  EXPECT_GE(one.num_simulations, 3);
  // At the capacity found the SLO holds; 10% above it (beyond the tolerance), it does not.
  for (const CandidateResult* r : {&one, &two}) {
    if (*r->rate_scale >= 8.0) continue;
    nlohmann::json s = testing::small_scenario();
    s["fleet"]["pools"][0]["num_replicas"] = r->config["num_replicas"];
    s["workloads"][0]["rate_scale"] = *r->rate_scale * 1.1;
    const sim::Scenario scenario = sim::parse_scenario(s, files.scenario, dir.string());
    sim::RunResult result = sim::run_scenario(scenario);
    EXPECT_GT(sim::compute_metrics(scenario, result).ttft.p99, 0.5);
  }
}

TEST(PlanSearch, InputErrors) {
  const ScratchFolder scratch(testing::kScratch, "errors");
  const fs::path& dir = scratch.path();
  const Files files = write_inputs(dir, kSpace);
  PlanOptions o = options_for(files, dir / "out", 1);
  o.slo = {"chat:p99_ttft<=1"};
  try {
    run_plan(o);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--slo \"chat:p99_ttft<=1\": no SLO class \"chat\" in " +
                                         files.scenario + " (classes: interactive)");
  }
  o = options_for(files, dir / "out", 1);
  o.mode = "fastest";
  EXPECT_THROW(run_plan(o), InputError);
  o = options_for(files, dir / "out", 1);
  o.space_path = (dir / "missing.json").string();
  EXPECT_THROW(run_plan(o), InputError);
}

}  // namespace
}  // namespace tidal::plan
