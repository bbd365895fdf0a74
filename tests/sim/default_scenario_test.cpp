#include "sim/default_scenario.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sim/workload_loader.h"

namespace tidal::sim {
namespace {

TEST(DefaultScenario, CompiledTextMatchesExamplesDefaultJson) {
  std::ifstream in(TIDAL_SOURCE_DIR "/examples/default.json", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(default_scenario_json(), text.str());
}

TEST(DefaultScenario, IsAnHourOfThreeWorkloadKindsOnASmallH100Fleet) {
  const Scenario s = load_default_scenario();
  EXPECT_EQ(s.name, "default");
  EXPECT_EQ(s.duration_s, 3600.0);
  ASSERT_EQ(s.workloads.size(), 3u);
  EXPECT_EQ(s.workloads[0].generator->at("kind"), "sessions");
  EXPECT_EQ(s.workloads[1].generator->at("kind"), "batch");
  EXPECT_EQ(s.workloads[2].generator->at("kind"), "bursty");
  ASSERT_EQ(s.pools.size(), 1u);
  EXPECT_EQ(s.pools[0].gpu, "H100-SXM");
  EXPECT_EQ(s.pools[0].model, "llama-3-8b");
  EXPECT_EQ(s.pools[0].num_replicas, 4);
  const RequestTable t = load_workloads(s);
  EXPECT_GT(t.requests.size(), 10000u);
  EXPECT_LT(t.requests.back().arrival_s, 3600.0);
}

}  // namespace
}  // namespace tidal::sim
