// What `tidal plan` answers: candidates named by their settings, the ranking's tie rule (cost as
// printed, then fewer GPUs, then latency), the console table of a small fixed plan, and the
// report's plan section showing the same table.
#include <filesystem>
#include <variant>

#include <gtest/gtest.h>

#include "plan/plan_outcome.h"
#include "plan/plan_table.h"
#include "plan/results_file.h"
#include "reports/report.h"
#include "tests/plan/plan_fixture.h"

namespace tidal::plan {
namespace {

using ojson = nlohmann::ordered_json;

PoolSetup setup(const std::string& gpu, int tp, int replicas, const std::string& dtype) {
  PoolSetup s;
  s.gpu = gpu;
  s.tp = tp;
  s.num_replicas = replicas;
  s.weight_dtype = dtype;
  s.kv_dtype = dtype;
  return s;
}

TEST(CandidateName, GpusGpuTpDtypeThenTheOtherDimensions) {
  EXPECT_EQ(candidate_name(setup("H100-SXM", 2, 2, "fp8"), ojson::object()), "4xH100-SXM tp2 fp8");
  const ojson config{{"tp", 2},
                     {"scheduler.policy", "continuous"},
                     {"scheduler.max_num_seqs", 64},
                     {"pricing.market", "spot"},
                     {"prefix_caching", false}};
  EXPECT_EQ(candidate_name(setup("A100-80GB", 2, 1, "int4"), config),
            "2xA100-80GB tp2 int4 continuous max_num_seqs=64 spot prefix_caching=false");
  // kv_dtype is named when it is searched.
  PoolSetup kv = setup("H100-SXM", 1, 3, "bf16");
  kv.kv_dtype = "fp8";
  EXPECT_EQ(candidate_name(kv, ojson{{"kv_dtype", "fp8"}}), "3xH100-SXM tp1 bf16 kv-fp8");
  EXPECT_EQ(candidate_name(kv, ojson::object()), "3xH100-SXM tp1 bf16");
}

TEST(CandidateName, InvalidCandidatesTakeTheirOverridesOverTheScenariosPool) {
  const PoolSetup base = setup("H100-SXM", 1, 1, "bf16");
  const PoolSetup s = setup_with_overrides(
      base, ojson{{"gpu", "A100-80GB"}, {"tp", 3}, {"num_replicas", 2}, {"weight_dtype", "fp8"}});
  EXPECT_EQ(candidate_name(s, ojson{{"tp", 3}}), "6xA100-80GB tp3 fp8");
  // Values of the wrong type (the loader's to refuse) leave the pool's.
  EXPECT_EQ(setup_with_overrides(base, ojson{{"tp", "two"}}).tp, 1);
  EXPECT_EQ(setup_with_overrides(base, ojson{{"gpu", {{"name", "X1"}}}}).gpu, "X1");
  // So do integers no pool can hold: never a count wrapped to a negative one.
  const PoolSetup huge = setup_with_overrides(
      base, ojson{{"num_replicas", int64_t{9223372036854775807}}, {"tp", uint64_t{1} << 40}});
  EXPECT_EQ(huge.num_replicas, 1);
  EXPECT_EQ(huge.tp, 1);
  EXPECT_EQ(setup_with_overrides(base, ojson{{"pp", int64_t{-3000000000}}}).pp, 1);
  EXPECT_EQ(setup_with_overrides(base, ojson{{"num_replicas", -2}}).num_replicas, -2);
}

CandidateResult result(int64_t index, const std::string& status, int64_t gpus, double dollars,
                       double p99_ttft_s, const PoolSetup& s) {
  CandidateResult r;
  r.id = "id" + std::to_string(index);
  r.index = index;
  r.config = ojson{{"num_replicas", s.num_replicas}};
  r.setup = s;
  r.name = candidate_name(s, r.config);
  r.status = status;
  r.reason = status == "feasible" ? "" : "p99_ttft = 2.5 s > 1 s";
  r.num_gpus = gpus;
  r.dollars = dollars;
  r.dollars_per_hour = 2.5 * static_cast<double>(gpus);
  r.dollars_per_day = 2.5 * static_cast<double>(gpus) * 24.0;
  r.p99_ttft_s = p99_ttft_s;
  r.p99_tpot_s = 0.0123;
  r.slo_attainment = status == "feasible" ? 0.995 : 0.5;
  r.num_simulations = 1;
  return r;
}

CandidateResult invalid(int64_t index, const PoolSetup& s) {
  CandidateResult r;
  r.id = "id" + std::to_string(index);
  r.index = index;
  r.config = ojson{{"num_replicas", s.num_replicas}};
  r.setup = s;
  r.name = candidate_name(s, r.config);
  r.status = "invalid";
  r.reason = "fleet.pools[0]: does not fit";
  return r;
}

// A fixed plan: costs $10.004 (4 GPUs), $10.001 (2 GPUs, slower), $10.001 (2 GPUs, faster) all
// print as $10.00; $9.50 misses the SLO; $12 with 1 GPU; one invalid.
std::vector<CandidateResult> fixed_results() {
  return {result(0, "feasible", 4, 10.004, 0.2, setup("H100-SXM", 1, 4, "bf16")),
          result(1, "feasible", 2, 10.001, 0.4, setup("H100-SXM", 2, 1, "bf16")),
          result(2, "feasible", 2, 10.001, 0.3, setup("H100-SXM", 1, 2, "bf16")),
          result(3, "slo_missed", 1, 9.5, 2.5, setup("H100-SXM", 1, 1, "bf16")),
          result(4, "feasible", 1, 12.0, 0.9, setup("A100-80GB", 1, 1, "bf16")),
          invalid(5, setup("H100-SXM", 8, 1, "bf16"))};
}

TEST(PlanRanking, TiesInPrintedDollarsGoToFewerGpusThenLowerLatency) {
  const PlanOutcome o = conclude(fixed_results(), PlanMode::cost, "ttft");
  ASSERT_TRUE(o.cheapest.has_value());
  // $10.001 with 2 GPUs (faster of the two) beats $10.004 with 4; the missed $9.50 and the
  // invalid one follow the feasible ones.
  EXPECT_EQ(o.ranking, (std::vector<size_t>{2, 1, 0, 4, 3, 5}));
  EXPECT_EQ(*o.cheapest, 2u);
  EXPECT_EQ(o.rank[2], 1);
  EXPECT_EQ(o.rank[1], 2);
  EXPECT_EQ(o.rank[0], 3);
  EXPECT_EQ(o.rank[4], 4);
  EXPECT_FALSE(o.rank[3].has_value());
  EXPECT_FALSE(o.rank[5].has_value());
  EXPECT_EQ(o.ranking_rule,
            "ranked by the trace's dollars; costs that print the same (to the cent, or three "
            "significant digits below $1) go to fewer GPUs, then lower p99 TTFT, then the lower "
            "candidate index");
  // Costs that print differently are ranked by cost, whatever the GPUs.
  std::vector<CandidateResult> two{
      result(0, "feasible", 1, 10.02, 0.5, setup("H100-SXM", 1, 1, "bf16")),
      result(1, "feasible", 4, 10.01, 0.5, setup("H100-SXM", 1, 4, "bf16"))};
  EXPECT_EQ(*conclude(two, PlanMode::cost, "ttft").cheapest, 1u);
}

TEST(PlanRanking, RepeatedNamesGetTheirIndex) {
  std::vector<CandidateResult> results = fixed_results();
  results[1].name = results[2].name;
  const PlanOutcome o = conclude(results, PlanMode::cost, "ttft");
  EXPECT_EQ(o.results[1].name, "2xH100-SXM tp1 bf16 #1");
  EXPECT_EQ(o.results[2].name, "2xH100-SXM tp1 bf16 #2");
  EXPECT_EQ(o.results[0].name, "4xH100-SXM tp1 bf16");
}

TEST(PlanTable, ShowsGpusDollarsPerHourAndDaySloAndLatenciesInMs) {
  const PlanOutcome o = conclude(fixed_results(), PlanMode::cost, "ttft");
  EXPECT_EQ(plan_table_text(o),
            "rank  candidate             GPU        GPUs  TP  replicas  dtype     $/h    $/day  "
            "$ trace  SLO attainment  p99 TTFT ms  p99 TPOT ms  SLO\n"
            "   1  2xH100-SXM tp1 bf16   H100-SXM      2   1         2  bf16    $5.00  $120.00  "
            " $10.00          99.50%          300         12.3  met\n"
            "   2  2xH100-SXM tp2 bf16   H100-SXM      2   2         1  bf16    $5.00  $120.00  "
            " $10.00          99.50%          400         12.3  met\n"
            "   3  4xH100-SXM tp1 bf16   H100-SXM      4   1         4  bf16   $10.00  $240.00  "
            " $10.00          99.50%          200         12.3  met\n"
            "   4  1xA100-80GB tp1 bf16  A100-80GB     1   1         1  bf16    $2.50   $60.00  "
            " $12.00          99.50%          900         12.3  met\n"
            "   -  1xH100-SXM tp1 bf16   H100-SXM      1   1         1  bf16    $2.50   $60.00  "
            "  $9.50           50.0%        2,500         12.3  missed: p99_ttft = 2.5 s > 1 s\n");
  // Capped rows say how many more there are.
  const std::string capped = plan_table_text(o, 2);
  EXPECT_NE(capped.find("\n   1  2xH100-SXM tp1 bf16"), std::string::npos) << capped;
  EXPECT_NE(capped.find("\n   -  1xH100-SXM tp1 bf16"), std::string::npos) << capped;
  EXPECT_NE(capped.find("... and 3 more meeting the SLO, 0 more missing it: plan.csv\n"),
            std::string::npos)
      << capped;
  PlanHeader header;
  header.slo = {"p99_ttft<=1s"};
  EXPECT_EQ(plan_winner_text(header, o),
            "winner: 2xH100-SXM tp1 bf16: 2 x H100-SXM (TP 1, 2 replicas, bf16) at $5.00/h, "
            "$120.00/day at the trace's rate ($10.00 for the trace); SLO attainment 99.50%, p99 "
            "TTFT 300 ms, p99 TPOT 12.3 ms; meets p99_ttft<=1s\n");
  EXPECT_EQ(plan_invalid_text(o),
            "invalid (1):\n  8xH100-SXM tp8 bf16: fleet.pools[0]: does not fit\n");
}

TEST(PlanTable, NoWinnerNamesTheCheapestMiss) {
  std::vector<CandidateResult> results{
      result(0, "slo_missed", 1, 9.5, 2.5, setup("H100-SXM", 1, 1, "bf16"))};
  const PlanOutcome o = conclude(results, PlanMode::cost, "ttft");
  PlanHeader header;
  header.slo = {"p99_ttft<=1s", "attainment>=99%"};
  EXPECT_EQ(plan_winner_text(header, o),
            "winner: none: no candidate meets p99_ttft<=1s and attainment>=99%; the cheapest "
            "simulated, 1xH100-SXM tp1 bf16, misses it (p99_ttft = 2.5 s > 1 s)\n");
}

// The report's plan section renders plan.json's ranking as the same table.
TEST(PlanTable, ReportShowsTheSameRankedTable) {
  const ScratchFolder scratch(testing::kScratch, "plan_table_report");
  const std::filesystem::path& dir = scratch.path();
  PlanHeader header;
  header.scenario = "fixed";
  header.slo = {"p99_ttft<=1s"};
  header.dimensions = {"num_replicas"};
  header.pool = "gpus";
  header.fingerprint = "fp";
  const PlanOutcome o = conclude(fixed_results(), PlanMode::cost, "ttft");
  write_plan_outputs(dir.string(), header, o);
  const reports::Document doc = reports::build_report({dir.string()});
  const reports::Table* table = nullptr;
  for (const reports::Section& s : doc.sections) {
    for (const reports::Block& b : s.blocks) {
      if (const auto* t = std::get_if<reports::Table>(&b); t != nullptr && t->id == "plan-ranked")
        table = t;
    }
  }
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->columns,
            (std::vector<std::string>{"rank", "candidate", "GPU", "GPUs", "TP", "replicas", "dtype",
                                      "$/h", "$/day", "$ trace", "SLO attainment", "p99 TTFT ms",
                                      "p99 TPOT ms", "SLO"}));
  ASSERT_EQ(table->rows.size(), 5u);
  std::vector<std::string> first;
  for (const reports::Cell& c : table->rows[0]) first.push_back(c.text);
  EXPECT_EQ(first, (std::vector<std::string>{"1", "2xH100-SXM tp1 bf16", "H100-SXM", "2", "1", "2",
                                             "bf16", "$5.00", "$120.00", "$10.00", "99.50%", "300",
                                             "12.3", "met"}));
  EXPECT_EQ(table->rows[4][0].text, "-");
  EXPECT_EQ(table->rows[4][13].text, "missed: p99_ttft = 2.5 s > 1 s");
}

// plan.json and plan.csv carry names, setups, ranks and $/day.
TEST(PlanTable, ResultsFilesCarryNamesAndSetups) {
  const PlanOutcome o = conclude(fixed_results(), PlanMode::cost, "ttft");
  PlanHeader header;
  header.dimensions = {"num_replicas"};
  header.fingerprint = "fp";
  const ojson j = plan_json(header, o);
  EXPECT_EQ(j["cheapest"], "id2");
  EXPECT_EQ(j["cheapest_name"], "2xH100-SXM tp1 bf16");
  EXPECT_EQ(j["ranking"], (ojson{"id2", "id1", "id0", "id4", "id3", "id5"}));
  const ojson& c = j["candidates"][2];
  EXPECT_EQ(c["name"], "2xH100-SXM tp1 bf16");
  EXPECT_EQ(c["gpu"], "H100-SXM");
  EXPECT_EQ(c["tp"], 1);
  EXPECT_EQ(c["num_replicas"], 2);
  EXPECT_EQ(c["weight_dtype"], "bf16");
  EXPECT_EQ(c["rank"], 1);
  EXPECT_EQ(c["dollars_per_day"], 120.0);
  EXPECT_TRUE(j["candidates"][3]["rank"].is_null());
  const std::string csv = plan_csv(header, o);
  EXPECT_TRUE(csv.starts_with(
      "id,index,name,num_replicas,status,rank,pool_gpu,pool_tp,pool_num_replicas,"
      "pool_weight_dtype,pool_kv_dtype,num_gpus,dollars,dollars_per_hour,dollars_per_day,"));
  EXPECT_NE(
      csv.find("\nid2,2,2xH100-SXM tp1 bf16,2,feasible,1,H100-SXM,1,2,bf16,bf16,2,10.001,5,120,"),
      std::string::npos);
  // The JSON line round-trips.
  const CandidateResult back = result_from_json(result_to_json(o.results[2], "fp"), "line");
  EXPECT_EQ(back.name, "2xH100-SXM tp1 bf16");
  EXPECT_EQ(back.setup.num_replicas, 2);
  EXPECT_EQ(*back.dollars_per_day, 120.0);
}

}  // namespace
}  // namespace tidal::plan
