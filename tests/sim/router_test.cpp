#include "sim/router.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace tidal::sim {
namespace {

std::vector<ReplicaLoad> loads(std::initializer_list<int64_t> outstanding) {
  std::vector<ReplicaLoad> result;
  for (int64_t n : outstanding) {
    ReplicaLoad load;
    load.num_outstanding = n;
    result.push_back(load);
  }
  return result;
}

TEST(Router, RegistryNames) {
  const auto names = router_names();
  ASSERT_EQ(names.size(), 9u);
  EXPECT_EQ(names[8], "lora_affinity");
  EXPECT_EQ(names[0], "round_robin");
  EXPECT_EQ(names[1], "least_outstanding_requests");
  EXPECT_THROW(make_router("no_such_router"), std::logic_error);
}

TEST(Router, RoundRobinCyclesAndSkipsReplicasThatAreNotWarm) {
  auto router = make_router("round_robin");
  std::vector<ReplicaLoad> view = loads({0, 0, 0});
  const Request r;
  EXPECT_EQ(router->route(r, view), 0);
  EXPECT_EQ(router->route(r, view), 1);
  view[2].state = ReplicaState::loading;
  EXPECT_EQ(router->route(r, view), 0);
  EXPECT_EQ(router->route(r, view), 1);
  for (ReplicaLoad& l : view) l.state = ReplicaState::draining;
  EXPECT_EQ(router->route(r, view), -1);
}

TEST(Router, LeastOutstandingPicksTheLightestAndSpreadsTies) {
  auto router = make_router("least_outstanding_requests");
  const Request r;
  std::vector<ReplicaLoad> view = loads({3, 1, 2});
  EXPECT_EQ(router->route(r, view), 1);
  view = loads({0, 0, 0});
  EXPECT_EQ(router->route(r, view), 2);  // ties start after the previous choice (1)
  EXPECT_EQ(router->route(r, view), 0);
  EXPECT_EQ(router->route(r, view), 1);
  view[1].state = ReplicaState::stopped;
  view[0].num_outstanding = 5;
  view[2].num_outstanding = 4;
  EXPECT_EQ(router->route(r, view), 2);
}

}  // namespace
}  // namespace tidal::sim
