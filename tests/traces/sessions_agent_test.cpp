// The sessions and agent generators: shared prefixes across turns, DAG structure.
#include <map>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "traces/dag.h"
#include "traces/generators.h"
#include "traces/stats.h"

namespace tidal::traces {
namespace {

constexpr int64_t kBlockTokens = 16;

std::map<std::string, std::vector<const Request*>> by_session(
    const std::vector<Request>& requests) {
  std::map<std::string, std::vector<const Request*>> sessions;
  for (const Request& request : requests) sessions[request.session_id].push_back(&request);
  return sessions;
}

TEST(Sessions, ConsecutiveTurnsShareTheHistoryPrefix) {
  const auto requests = generate({{"kind", "sessions"},
                                  {"session_rate", 0.5},
                                  {"turns", {{"dist", "uniform"}, {"min", 2}, {"max", 6}}},
                                  {"system_prompt_tokens", 100},
                                  {"duration_s", 3600}},
                                 21);
  ASSERT_GT(requests.size(), 1000u);
  int64_t num_pairs = 0;
  for (const auto& [session_id, turns] : by_session(requests)) {
    ASSERT_FALSE(session_id.empty());
    for (size_t t = 0; t < turns.size(); ++t) {
      const Request& turn = *turns[t];
      ASSERT_EQ(turn.turn, static_cast<int32_t>(t));
      ASSERT_EQ(turn.prefix_block_tokens, kBlockTokens);
      ASSERT_EQ(static_cast<int64_t>(turn.prefix_blocks.size()),
                (turn.prompt_tokens + kBlockTokens - 1) / kBlockTokens);
      if (t == 0) {
        ASSERT_GT(turn.prompt_tokens, 100);
        continue;
      }
      const Request& previous = *turns[t - 1];
      ASSERT_GE(turn.arrival_s, previous.arrival_s);
      // The prompt holds the previous prompt, its reply and a new message.
      ASSERT_GT(turn.prompt_tokens, previous.prompt_tokens + previous.output_tokens);
      // Every block wholly inside the previous prompt and reply is shared.
      const auto num_shared =
          static_cast<size_t>((previous.prompt_tokens + previous.output_tokens) / kBlockTokens);
      const auto num_previous_full = static_cast<size_t>(previous.prompt_tokens / kBlockTokens);
      for (size_t b = 0; b < num_previous_full; ++b) {
        ASSERT_EQ(turn.prefix_blocks[b], previous.prefix_blocks[b]);
      }
      // The previous prompt's partial last block is not: it has grown since.
      if (previous.prompt_tokens % kBlockTokens != 0) {
        ASSERT_NE(turn.prefix_blocks[num_previous_full], previous.prefix_blocks[num_previous_full]);
      }
      // The blocks filled by the reply reappear in the turn after next.
      if (t + 1 < turns.size()) {
        const Request& next = *turns[t + 1];
        for (size_t b = 0; b < num_shared; ++b)
          ASSERT_EQ(next.prefix_blocks[b], turn.prefix_blocks[b]);
      }
      ++num_pairs;
    }
  }
  EXPECT_GT(num_pairs, 500);
  const TraceStats stats = compute_stats(requests);
  ASSERT_TRUE(stats.prefix_reuse.has_value());
  EXPECT_GT(stats.prefix_reuse->ratio, 0.5);
  EXPECT_EQ(stats.num_sessions, static_cast<int64_t>(by_session(requests).size()));
}

TEST(Sessions, SystemPromptBlocksAreSharedAcrossSessions) {
  const auto requests = generate({{"kind", "sessions"},
                                  {"session_rate", 1},
                                  {"system_prompt_tokens", 64},
                                  {"num_requests", 50}},
                                 3);
  ASSERT_EQ(requests.size(), 50u);
  for (const Request& request : requests) {
    for (size_t b = 0; b < 4; ++b)
      ASSERT_EQ(request.prefix_blocks[b], requests[0].prefix_blocks[b]);
  }
  std::set<std::string> sessions;
  for (const Request& request : requests) sessions.insert(request.session_id);
  ASSERT_GT(sessions.size(), 1u);
}

TEST(Sessions, CountModeGivesTheFirstArrivalsOfTheSameProcess) {
  const nlohmann::json base = {{"kind", "sessions"}, {"session_rate", 0.3}, {"think_time_s", 5}};
  nlohmann::json by_count = base;
  by_count["num_requests"] = 200;
  nlohmann::json by_duration = base;
  by_duration["duration_s"] = 5000;
  const auto first = generate(by_count, 4);
  const auto longer = generate(by_duration, 4);
  ASSERT_EQ(first.size(), 200u);
  ASSERT_GT(longer.size(), 200u);
  for (size_t i = 0; i < first.size(); ++i) ASSERT_EQ(first[i], longer[i]) << i;
}

TEST(Sessions, ContextLimitEndsASession) {
  const auto requests = generate({{"kind", "sessions"},
                                  {"session_rate", 1},
                                  {"turns", 50},
                                  {"prompt", 300},
                                  {"output", 200},
                                  {"think_time_s", 1},
                                  {"max_context_tokens", 2000},
                                  {"duration_s", 100}},
                                 5);
  for (const Request& request : requests) {
    ASSERT_LE(request.prompt_tokens, 2000);
    ASSERT_LT(request.turn, 4);  // 300, 800, 1300, 1800; the fifth would need 2300
  }
}

TEST(Agent, DepsAreAcyclicAndReferToEarlierIds) {
  const auto requests = generate({{"kind", "agent"},
                                  {"job_rate", 0.5},
                                  {"stages", 3},
                                  {"fan_out", {{"dist", "uniform"}, {"min", 2}, {"max", 4}}},
                                  {"duration_s", 600}},
                                 31);
  ASSERT_GT(requests.size(), 1000u);
  std::map<std::string, std::vector<const Request*>> jobs = by_session(requests);
  for (const auto& [job_id, calls] : jobs) {
    ASSERT_TRUE(calls.front()->deps.empty());  // the planner
    for (const Request* call : calls) {
      ASSERT_EQ(call->arrival_s, calls.front()->arrival_s);
      for (const int64_t dep : call->deps) {
        ASSERT_LT(dep, call->id);
        ASSERT_EQ(requests[static_cast<size_t>(dep)].session_id, job_id);
        ASSERT_GE(call->prompt_tokens, requests[static_cast<size_t>(dep)].output_tokens);
      }
    }
    // planner, then 3 x (2..4 workers + 1 aggregator)
    ASSERT_GE(calls.size(), 10u);
    ASSERT_LE(calls.size(), 16u);
  }
  const DagAnalysis analysis = analyze_dag(requests);
  EXPECT_EQ(analysis.critical_path_requests, 7);  // planner + 3 x (worker, aggregator)
  EXPECT_EQ(analysis.num_dags, static_cast<int64_t>(jobs.size()));
  const TraceStats stats = compute_stats(requests);
  ASSERT_TRUE(stats.dag.has_value());
  EXPECT_EQ(stats.dag->critical_path_requests, 7);
}

TEST(Agent, AggregatorPromptsCarryEveryWorkersOutput) {
  const auto requests = generate({{"kind", "agent"},
                                  {"job_rate", 1},
                                  {"stages", 1},
                                  {"fan_out", 3},
                                  {"prompt", 10},
                                  {"num_requests", 5}},
                                 2);
  ASSERT_EQ(requests.size(), 5u);
  const Request& aggregator = requests[4];
  ASSERT_EQ(aggregator.deps, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(aggregator.prompt_tokens,
            10 + requests[1].output_tokens + requests[2].output_tokens + requests[3].output_tokens);
  EXPECT_EQ(requests[1].prompt_tokens, 10 + requests[0].output_tokens);
}

}  // namespace
}  // namespace tidal::traces
