// The closed_loop generator, the sessions generator's closed_loop option and the think_time_s
// field through tidal JSONL and CSV.
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "traces/generators.h"
#include "traces/reader.h"
#include "traces/writer.h"

namespace tidal::traces {
namespace {

std::string error_of(const nlohmann::json& spec) {
  try {
    generate(spec, 1, "workloads[0].generator");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

nlohmann::json benchmark_spec() {
  return {{"kind", "closed_loop"},
          {"concurrency", 4},
          {"num_requests", 10},
          {"prompt", 1024},
          {"output", 128}};
}

TEST(ClosedLoop, FixedLengthsGiveTheBenchmarkShape) {
  const std::vector<Request> requests = generate(benchmark_spec(), 7);
  ASSERT_EQ(requests.size(), 10u);
  for (size_t j = 0; j < requests.size(); ++j) {
    const Request& r = requests[j];
    EXPECT_EQ(r.id, static_cast<int64_t>(j));
    EXPECT_EQ(r.arrival_s, 0.0);
    EXPECT_EQ(r.prompt_tokens, 1024);
    EXPECT_EQ(r.output_tokens, 128);
    EXPECT_TRUE(r.prefix_blocks.empty());  // no system prompt: nothing shared to hash
    EXPECT_EQ(r.think_time_s, 0.0);
    EXPECT_EQ(r.slo_class, "interactive");
  }
}

TEST(ClosedLoop, EachClientIsOneChainOfDeps) {
  const std::vector<Request> requests = generate(benchmark_spec(), 7);
  // Request j is client j % 4's (j / 4)-th and waits on the client's previous request.
  for (size_t j = 0; j < requests.size(); ++j) {
    const Request& r = requests[j];
    EXPECT_EQ(r.session_id, fmt::format("c{}", j % 4)) << j;
    EXPECT_EQ(r.turn, static_cast<int32_t>(j / 4)) << j;
    if (j < 4) {
      EXPECT_TRUE(r.deps.empty()) << j;
    } else {
      EXPECT_EQ(r.deps, std::vector<int64_t>{static_cast<int64_t>(j) - 4}) << j;
    }
  }
}

TEST(ClosedLoop, ThinkTimesAreRecordedOnEveryRequestButEachClientsFirst) {
  nlohmann::json spec = benchmark_spec();
  spec["num_requests"] = 400;
  spec["think_time_s"] = {{"dist", "uniform"}, {"min", 0.5}, {"max", 1.5}};
  const std::vector<Request> requests = generate(spec, 3);
  double sum = 0.0;
  for (const Request& r : requests) {
    if (r.deps.empty()) {
      EXPECT_EQ(r.think_time_s, 0.0);
      continue;
    }
    EXPECT_GE(r.think_time_s, 0.5);
    EXPECT_LE(r.think_time_s, 1.5);
    sum += r.think_time_s;
  }
  EXPECT_NEAR(sum / 396.0, 1.0, 0.05);
  // A fixed think time is exact; time_scale stretches it like every generated time.
  spec["think_time_s"] = 2.5;
  spec["time_scale"] = 2.0;
  for (const Request& r : generate(spec, 3)) {
    EXPECT_EQ(r.think_time_s, r.deps.empty() ? 0.0 : 5.0);
    EXPECT_EQ(r.arrival_s, 0.0);
  }
}

TEST(ClosedLoop, SystemPromptBlocksAreSharedByEveryRequestAndNothingElseIs) {
  nlohmann::json spec = benchmark_spec();
  spec["system_prompt_tokens"] = 100;  // 6 full blocks of 16, then a partial one
  spec["prompt"] = 60;
  const std::vector<Request> requests = generate(spec, 5);
  ASSERT_EQ(requests.size(), 10u);
  const Request& first = requests[0];
  EXPECT_EQ(first.prompt_tokens, 160);
  EXPECT_EQ(first.prefix_block_tokens, 16);
  ASSERT_EQ(first.prefix_blocks.size(), 10u);
  for (size_t j = 1; j < requests.size(); ++j) {
    const Request& r = requests[j];
    ASSERT_EQ(r.prefix_blocks.size(), 10u);
    for (size_t b = 0; b < 6; ++b) EXPECT_EQ(r.prefix_blocks[b], first.prefix_blocks[b]) << j;
    for (size_t b = 6; b < 10; ++b) EXPECT_NE(r.prefix_blocks[b], first.prefix_blocks[b]) << j;
  }
  // Another block size cuts the same prompts differently.
  spec["block_tokens"] = 32;
  EXPECT_EQ(generate(spec, 5)[0].prefix_blocks.size(), 5u);
}

TEST(ClosedLoop, SameSeedSameTraceAndTheSeedMovesLengths) {
  nlohmann::json spec = {{"kind", "closed_loop"}, {"concurrency", 8}, {"num_requests", 50}};
  std::ostringstream a, b, c;
  write_jsonl(generate(spec, 11), a);
  write_jsonl(generate(spec, 11), b);
  write_jsonl(generate(spec, 12), c);
  EXPECT_EQ(a.str(), b.str());
  EXPECT_NE(a.str(), c.str());
}

TEST(ClosedLoop, FewerRequestsThanClientsLeaveClientsWithNone) {
  nlohmann::json spec = benchmark_spec();
  spec["num_requests"] = 3;
  const std::vector<Request> requests = generate(spec, 1);
  ASSERT_EQ(requests.size(), 3u);
  for (const Request& r : requests) EXPECT_TRUE(r.deps.empty());
}

TEST(ClosedLoop, SpecErrorsNameTheirJsonPath) {
  nlohmann::json spec = benchmark_spec();
  spec["concurrency"] = 0;
  EXPECT_EQ(error_of(spec), "workloads[0].generator.concurrency: must be in [1, 50000000], got 0");
  spec.erase("concurrency");
  EXPECT_EQ(error_of(spec), "workloads[0].generator.concurrency: missing (required)");
  spec = benchmark_spec();
  spec.erase("num_requests");
  EXPECT_EQ(error_of(spec),
            "workloads[0].generator.duration_s: missing (give duration_s or num_requests)");
  spec["duration_s"] = 60;
  EXPECT_EQ(error_of(spec).rfind("workloads[0].generator.duration_s: closed_loop takes "
                                 "num_requests",
                                 0),
            0u)
      << error_of(spec);
  spec = benchmark_spec();
  spec["concurency"] = 4;
  EXPECT_EQ(error_of(spec).rfind("workloads[0].generator.concurency: unknown key (known here: ", 0),
            0u)
      << error_of(spec);
  spec = benchmark_spec();
  spec["think_time_s"] = {{"dist", "exponential"}};
  EXPECT_EQ(error_of(spec).rfind("workloads[0].generator.think_time_s.", 0), 0u) << error_of(spec);
}

TEST(SessionsClosedLoop, EachTurnWaitsOnThePreviousWithItsThinkTime) {
  nlohmann::json spec = {{"kind", "sessions"},
                         {"session_rate", 0.5},
                         {"turns", {{"dist", "uniform"}, {"min", 2}, {"max", 5}}},
                         {"think_time_s", {{"dist", "exponential"}, {"mean", 10}}},
                         {"duration_s", 600}};
  const std::vector<Request> open = generate(spec, 9);
  spec["closed_loop"] = true;
  const std::vector<Request> closed = generate(spec, 9);
  ASSERT_GT(closed.size(), 300u);
  std::map<std::string, std::vector<const Request*>> sessions;
  for (const Request& r : closed) sessions[r.session_id].push_back(&r);
  std::map<std::string, std::vector<const Request*>> open_sessions;
  for (const Request& r : open) open_sessions[r.session_id].push_back(&r);
  for (const auto& [id, turns] : sessions) {
    const std::vector<const Request*>& open_turns = open_sessions[id];
    for (size_t t = 0; t < turns.size(); ++t) {
      const Request& turn = *turns[t];
      ASSERT_EQ(turn.turn, static_cast<int32_t>(t));
      EXPECT_EQ(turn.arrival_s, turns[0]->arrival_s) << "every turn may go from the start on";
      if (t == 0) {
        EXPECT_TRUE(turn.deps.empty());
        EXPECT_EQ(turn.think_time_s, 0.0);
      } else {
        EXPECT_EQ(turn.deps, std::vector<int64_t>{turns[t - 1]->id});
        EXPECT_GT(turn.think_time_s, 0.0);
      }
      // Same draws as open loop: the open-loop gap is the closed-loop think time, and the
      // sizes and blocks are the same.
      if (t < open_turns.size()) {
        const Request& open_turn = *open_turns[t];
        EXPECT_EQ(turn.prompt_tokens, open_turn.prompt_tokens);
        EXPECT_EQ(turn.prefix_blocks, open_turn.prefix_blocks);
        if (t > 0) {
          EXPECT_NEAR(turn.think_time_s, open_turn.arrival_s - open_turns[t - 1]->arrival_s, 1e-9);
        }
      }
    }
    // The horizon bounds session starts only: closed loop keeps turns open loop cut off.
    EXPECT_GE(turns.size(), open_turns.size());
  }
  EXPECT_GT(closed.size(), open.size());
}

TEST(ThinkTime, RoundTripsThroughTidalJsonlAndCsv) {
  nlohmann::json spec = benchmark_spec();
  spec["think_time_s"] = {{"dist", "exponential"}, {"mean", 0.3}};
  spec["system_prompt_tokens"] = 40;
  const std::vector<Request> requests = generate(spec, 2);
  std::ostringstream jsonl, csv;
  write_jsonl(requests, jsonl);
  write_csv(requests, csv);
  EXPECT_NE(jsonl.str().find("\"think_time_s\":"), std::string::npos);
  EXPECT_EQ(read_trace_text(jsonl.str(), "t.jsonl"), requests);
  EXPECT_EQ(read_trace_text(csv.str(), "t.csv"), requests);
}

TEST(ThinkTime, ReadersCheckIt) {
  auto error_of_text = [](const std::string& text, const std::string& name) {
    try {
      read_trace_text(text, name);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  const std::string ok =
      R"({"id":0,"arrival_s":0,"prompt_tokens":1,"output_tokens":1})"
      "\n"
      R"({"id":1,"arrival_s":0,"prompt_tokens":1,"output_tokens":1,"deps":[0],"think_time_s":1.5})"
      "\n";
  EXPECT_EQ(read_trace_text(ok, "t.jsonl")[1].think_time_s, 1.5);
  EXPECT_EQ(
      error_of_text(R"({"arrival_s":0,"prompt_tokens":1,"output_tokens":1,"think_time_s":-1})",
                    "t.jsonl"),
      "t.jsonl:1: think_time_s: must be in [0, 1000000000], got -1");
  EXPECT_EQ(error_of_text(R"({"arrival_s":0,"prompt_tokens":1,"output_tokens":1,"think_time_s":2})",
                          "t.jsonl"),
            "t.jsonl:1: think_time_s: needs deps (it counts from their finish)");
  EXPECT_EQ(
      error_of_text("arrival_s,prompt_tokens,output_tokens,deps,think_time_s\n0,1,1,,x\n", "t.csv")
          .rfind("t.csv:2: think_time_s: ", 0),
      0u);
  // An empty think_time_s field means 0.
  EXPECT_EQ(read_trace_text("arrival_s,prompt_tokens,output_tokens,think_time_s\n0,1,1,\n", "t.csv")
                .at(0)
                .think_time_s,
            0.0);
}

}  // namespace
}  // namespace tidal::traces
