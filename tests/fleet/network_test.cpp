// Network graph: shortest paths (not the direct link), unreachable pairs, spec validation.
#include "sim/fleet/network.h"

#include <gtest/gtest.h>

#include "base/input_error.h"

namespace tidal::fleet {
namespace {

// Clients in "eu" and "asia"; an edge site near eu; GPU regions us-east and an isolated one.
//   eu --100-- us-east       (direct, slow)
//   eu --10--  edge-fra --20-- us-east   (30 ms: the shortest)
//   asia --80-- us-east
//   island: no links
const nlohmann::json kNetwork = {{"regions",
                                  {{{"name", "eu"}, {"kind", "client"}},
                                   {{"name", "asia"}, {"kind", "client"}},
                                   {{"name", "edge-fra"}, {"kind", "edge"}},
                                   {{"name", "us-east"}, {"kind", "gpu"}},
                                   {{"name", "island"}, {"kind", "gpu"}}}},
                                 {"links",
                                  {{{"from", "eu"}, {"to", "us-east"}, {"latency_ms", 100}},
                                   {{"from", "eu"}, {"to", "edge-fra"}, {"latency_ms", 10}},
                                   {{"from", "us-east"}, {"to", "edge-fra"}, {"latency_ms", 20}},
                                   {{"from", "asia"}, {"to", "us-east"}, {"latency_ms", 80}}}}};

NetworkSpec parse(const nlohmann::json& json) {
  return parse_network_spec(json, "scenario.json", "network");
}

std::string parse_error(const nlohmann::json& json) {
  try {
    parse(json);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

class NetworkTest : public ::testing::Test {
 protected:
  NetworkGraph graph{parse(kNetwork)};
  int32_t id(const char* name) const { return *graph.find_region(name); }
};

TEST_F(NetworkTest, ShortestPathBeatsTheDirectLink) {
  ASSERT_TRUE(graph.latency_s(id("eu"), id("us-east")).has_value());
  EXPECT_DOUBLE_EQ(*graph.latency_s(id("eu"), id("us-east")), 0.030);
  EXPECT_EQ(graph.path(id("eu"), id("us-east")),
            (std::vector<int32_t>{id("eu"), id("edge-fra"), id("us-east")}));
  // Links are symmetric.
  EXPECT_DOUBLE_EQ(*graph.latency_s(id("us-east"), id("eu")), 0.030);
  // asia -> edge-fra goes through us-east.
  EXPECT_DOUBLE_EQ(*graph.latency_s(id("asia"), id("edge-fra")), 0.100);
  EXPECT_DOUBLE_EQ(*graph.latency_s(id("eu"), id("eu")), 0.0);
  EXPECT_EQ(graph.path(id("eu"), id("eu")), (std::vector<int32_t>{id("eu")}));
}

TEST_F(NetworkTest, DisconnectedPairsAreUnreachable) {
  EXPECT_FALSE(graph.latency_s(id("eu"), id("island")).has_value());
  EXPECT_TRUE(graph.path(id("eu"), id("island")).empty());
}

TEST_F(NetworkTest, NearestSitesInLatencyOrder) {
  EXPECT_EQ(graph.nearest_sites(id("eu")), (std::vector<int32_t>{id("edge-fra"), id("us-east")}));
  EXPECT_EQ(graph.nearest_sites(id("asia")), (std::vector<int32_t>{id("us-east"), id("edge-fra")}));
}

TEST_F(NetworkTest, RequireRegionChecksNameAndKind) {
  EXPECT_EQ(graph.require_region("us-east", false, "s.json", "fleet.pools[0].region"),
            id("us-east"));
  EXPECT_EQ(graph.require_region("asia", true, "s.json", "workloads[0].region"), id("asia"));
  auto error = [&](const char* name, bool client) {
    try {
      graph.require_region(name, client, "s.json", "fleet.pools[0].region");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("mars", false),
            "s.json: fleet.pools[0].region: unknown region \"mars\"; regions: eu, asia, "
            "edge-fra, us-east, island");
  EXPECT_EQ(error("eu", false),
            "s.json: fleet.pools[0].region: region \"eu\" is a client region; pools need an edge "
            "or gpu region");
  EXPECT_EQ(error("edge-fra", true),
            "s.json: fleet.pools[0].region: region \"edge-fra\" is a edge region; requests come "
            "from client regions");
}

TEST_F(NetworkTest, EveryClientMustReachAPool) {
  EXPECT_NO_THROW(graph.require_clients_served({id("us-east")}, "s.json", "fleet"));
  try {
    graph.require_clients_served({id("island")}, "s.json", "fleet");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "s.json: fleet: client region \"eu\" reaches none of the pools' regions (island)");
  }
}

TEST(Network, BadSpecsNameTheJsonPath) {
  nlohmann::json bad = kNetwork;
  bad["links"][1]["to"] = "edge-par";
  EXPECT_EQ(parse_error(bad),
            "scenario.json: network.links[1].to: unknown region \"edge-par\"; regions: eu, asia, "
            "edge-fra, us-east, island");
  bad = kNetwork;
  bad["regions"][3]["name"] = "eu";
  EXPECT_EQ(parse_error(bad),
            "scenario.json: network.regions[3].name: duplicate region \"eu\" (also regions[0])");
  bad = kNetwork;
  bad["links"][2]["to"] = "us-east";
  EXPECT_EQ(parse_error(bad),
            "scenario.json: network.links[2]: links region \"us-east\" to itself");
  bad = kNetwork;
  bad["links"].push_back({{"from", "us-east"}, {"to", "eu"}, {"latency_ms", 1}});
  EXPECT_EQ(parse_error(bad),
            "scenario.json: network.links[4]: duplicate link between \"us-east\" and \"eu\" (also "
            "links[0])");
  bad = kNetwork;
  bad["links"][0]["latency_ms"] = -1;
  EXPECT_EQ(parse_error(bad), "scenario.json: network.links[0].latency_ms: must be >= 0 (got -1)");
  bad = kNetwork;
  bad["links"][0].erase("latency_ms");
  EXPECT_EQ(parse_error(bad), "scenario.json: network.links[0].latency_ms: missing");
  bad = kNetwork;
  bad["regions"][0]["kind"] = "cloud";
  EXPECT_EQ(parse_error(bad),
            "scenario.json: network.regions[0].kind: unknown region kind \"cloud\"; expected "
            "client, edge or gpu");
  bad = kNetwork;
  bad["links"][0]["bandwidth"] = 1;
  EXPECT_EQ(parse_error(bad), "scenario.json: network.links[0].bandwidth: unknown key");
  EXPECT_EQ(parse_error({{"regions", {{{"name", "g"}, {"kind", "gpu"}}}},
                         {"links", nlohmann::json::array()}}),
            "scenario.json: network.regions: needs at least one client region and one edge or "
            "gpu region");
  EXPECT_EQ(parse_error({{"regions", {}}}),
            "scenario.json: network.regions: must be an array of objects");
}

}  // namespace
}  // namespace tidal::fleet
