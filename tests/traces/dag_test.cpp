#include "traces/dag.h"

#include <gtest/gtest.h>

#include "base/input_error.h"

namespace tidal::traces {
namespace {

std::vector<Request> chain_of(int64_t num_requests) {
  std::vector<Request> requests(static_cast<size_t>(num_requests));
  for (int64_t i = 0; i < num_requests; ++i) {
    requests[static_cast<size_t>(i)].id = 100 + i;
    requests[static_cast<size_t>(i)].output_tokens = 2;
    if (i > 0) requests[static_cast<size_t>(i)].deps = {100 + i - 1};
  }
  return requests;
}

TEST(Dag, TopologicalOrderPutsDepsFirst) {
  std::vector<Request> requests = chain_of(4);
  std::swap(requests[0], requests[3]);  // file order need not be topological
  const DagAnalysis analysis = analyze_dag(requests);
  ASSERT_EQ(analysis.topo_order.size(), 4u);
  std::vector<size_t> position(4);
  for (size_t i = 0; i < 4; ++i) position[static_cast<size_t>(analysis.topo_order[i])] = i;
  for (size_t i = 0; i < requests.size(); ++i) {
    for (const int64_t dep : requests[i].deps) {
      const auto dep_index =
          static_cast<size_t>(std::find_if(requests.begin(), requests.end(),
                                           [dep](const Request& r) { return r.id == dep; }) -
                              requests.begin());
      EXPECT_LT(position[dep_index], position[i]);
    }
  }
  EXPECT_EQ(analysis.critical_path_requests, 4);
  EXPECT_EQ(analysis.critical_path_output_tokens, 8);
  EXPECT_EQ(analysis.num_dags, 1);
}

TEST(Dag, CyclesUnknownIdsSelfDepsAndDuplicateIdsAreErrors) {
  std::vector<Request> cycle = chain_of(3);
  cycle[0].deps = {102};
  EXPECT_THROW(analyze_dag(cycle), InputError);
  try {
    analyze_dag(cycle);
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(),
                 "deps form a cycle: request 100 waits on 102, 102 on 101, 101 on 100");
  }
  std::vector<Request> unknown = chain_of(2);
  unknown[1].deps = {7};
  try {
    analyze_dag(unknown);
    FAIL();
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "request 101 (requests[1]): deps: unknown id 7");
  }
  std::vector<Request> self = chain_of(2);
  self[1].deps = {101};
  EXPECT_THROW(analyze_dag(self), InputError);
  std::vector<Request> duplicate = chain_of(2);
  duplicate[1].id = 100;
  EXPECT_THROW(analyze_dag(duplicate), InputError);
}

TEST(Dag, NoDepsMeansNoDag) {
  std::vector<Request> requests(3);
  for (size_t i = 0; i < 3; ++i) requests[i].id = static_cast<int64_t>(i);
  const DagAnalysis analysis = analyze_dag(requests);
  EXPECT_EQ(analysis.num_dag_requests, 0);
  EXPECT_EQ(analysis.num_dags, 0);
  EXPECT_EQ(analysis.critical_path_requests, 0);
  EXPECT_EQ(analysis.topo_order.size(), 3u);
}

}  // namespace
}  // namespace tidal::traces
