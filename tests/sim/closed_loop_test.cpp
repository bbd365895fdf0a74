// Closed-loop workloads end to end: clients never have more than `concurrency` requests in
// flight, each request arrives exactly its think time after its predecessor finished, the
// load a closed loop offers follows its concurrency, and the warm-up the metrics leave out is
// left out and stated.
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "sim/metrics.h"
#include "sim/run_output.h"
#include "sim/simulator.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::h100_pool;
using testing::scenario_from;

nlohmann::json closed_loop(int concurrency, int num_requests, double think_s, int prompt,
                           int output) {
  return {{"kind", "closed_loop"},   {"concurrency", concurrency}, {"num_requests", num_requests},
          {"think_time_s", think_s}, {"prompt", prompt},           {"output", output}};
}

Scenario scenario_of(const nlohmann::json& generator, const nlohmann::json& metrics = nullptr,
                     int num_replicas = 1) {
  nlohmann::json j = {{"seed", 5},
                      {"workloads", {{{"generator", generator}}}},
                      {"fleet", {{"pools", {h100_pool(num_replicas)}}}}};
  if (!metrics.is_null()) j["metrics"] = metrics;
  return scenario_from(j);
}

// The most requests between arrival and finish at any instant; a finish at t comes before an
// arrival at t (the next request of a client with no think time).
int64_t max_in_flight(const RunResult& r) {
  std::vector<std::pair<int64_t, int>> edges;  // (time, +1 arrival / -1 finish)
  for (const RequestRecord& rec : r.records) {
    edges.emplace_back(rec.arrival_ns, +1);
    edges.emplace_back(rec.finish_ns, -1);
  }
  std::sort(edges.begin(), edges.end());
  int64_t now = 0;
  int64_t most = 0;
  for (const auto& [time, step] : edges) {
    now += step;
    most = std::max(most, now);
  }
  return most;
}

// The sum of every request's e2e time: over the run's length, the mean number in flight.
double total_e2e_s(const RunResult& r) {
  double sum = 0.0;
  for (const RequestRecord& rec : r.records) {
    sum += static_cast<double>(rec.finish_ns - rec.arrival_ns) / 1e9;
  }
  return sum;
}

void expect_all_finished(const RunResult& r) {
  for (size_t i = 0; i < r.records.size(); ++i) {
    ASSERT_EQ(r.records[i].status, RequestStatus::finished) << "request " << i;
  }
}

TEST(ClosedLoop, NeverMoreThanConcurrencyInFlightAndEveryRequestFollowsItsPredecessor) {
  const Scenario s = scenario_of(closed_loop(8, 120, 0.25, 512, 64));
  RunResult r = run_scenario(s);
  ASSERT_EQ(r.records.size(), 120u);
  expect_all_finished(r);
  EXPECT_EQ(max_in_flight(r), 8);
  const int64_t think_ns = 250'000'000;
  int64_t num_first = 0;
  for (size_t i = 0; i < r.records.size(); ++i) {
    const Request& req = r.table.requests[i];
    const RequestRecord& rec = r.records[i];
    if (req.deps.empty()) {
      ++num_first;
      EXPECT_EQ(rec.arrival_ns, 0) << "every client starts at once";
      continue;
    }
    ASSERT_EQ(req.deps.size(), 1u);
    const RequestRecord& previous = r.records[static_cast<size_t>(req.deps[0])];
    EXPECT_EQ(r.table.requests[static_cast<size_t>(req.deps[0])].session_id, req.session_id);
    EXPECT_EQ(rec.arrival_ns, previous.finish_ns + think_ns) << "request " << i;
  }
  EXPECT_EQ(num_first, 8);
}

TEST(ClosedLoop, EachClientIsBusyOrThinkingUntilItsLastAnswer) {
  // Per client: the e2e times and the think times between them tile [0, last finish] exactly.
  const Scenario s = scenario_of(closed_loop(5, 60, 0.1, 256, 32));
  RunResult r = run_scenario(s);
  expect_all_finished(r);
  std::map<std::string, std::pair<int64_t, int64_t>> clients;  // id -> (tiled ns, last finish)
  for (size_t i = 0; i < r.records.size(); ++i) {
    const RequestRecord& rec = r.records[i];
    auto& [tiled, last] = clients[r.table.requests[i].session_id];
    tiled += rec.finish_ns - rec.arrival_ns;
    if (!r.table.requests[i].deps.empty()) tiled += 100'000'000;
    last = std::max(last, rec.finish_ns);
  }
  ASSERT_EQ(clients.size(), 5u);
  for (const auto& [id, figures] : clients) EXPECT_EQ(figures.first, figures.second) << id;
}

TEST(ClosedLoop, TwoRunsGiveByteIdenticalSummaries) {
  const Scenario s = scenario_of(closed_loop(16, 200, 0.0, 1024, 128),
                                 {{"warmup_s", 2.0}, {"exclude_first_per_client", true}});
  RunResult a = run_scenario(s);
  RunResult b = run_scenario(s);
  const RunMetrics ma = compute_metrics(s, a);
  const RunMetrics mb = compute_metrics(s, b);
  EXPECT_EQ(summary_json(s, a, ma).dump(2), summary_json(s, b, mb).dump(2));
}

TEST(ClosedLoop, ThinkBoundClientsScaleLinearlyAndBusyServersSaturate) {
  // Tiny requests and a long think time: the server is nearly idle, so each client sends about
  // one request per (think + service) and throughput grows with the number of clients.
  std::vector<double> throughput;
  for (int concurrency : {1, 4, 16}) {
    const Scenario s = scenario_of(closed_loop(concurrency, 20 * concurrency, 1.0, 16, 2));
    RunResult r = run_scenario(s);
    expect_all_finished(r);
    EXPECT_LE(max_in_flight(r), concurrency);
    throughput.push_back(compute_metrics(s, r).request_throughput_rps);
  }
  EXPECT_NEAR(throughput[1] / throughput[0], 4.0, 0.2);
  EXPECT_NEAR(throughput[2] / throughput[0], 16.0, 0.8);
  // Long requests and no think time: the server is the bottleneck. More clients keep more
  // requests in flight (never more than there are clients) and wait longer for each.
  double previous_in_flight = 0.0;
  double previous_e2e = 0.0;
  for (int concurrency : {1, 8, 32}) {
    const Scenario s = scenario_of(closed_loop(concurrency, 4 * concurrency, 0.0, 2048, 256));
    RunResult r = run_scenario(s);
    expect_all_finished(r);
    EXPECT_EQ(max_in_flight(r), concurrency);
    const RunMetrics m = compute_metrics(s, r);
    const double mean_in_flight = total_e2e_s(r) / m.duration_s;
    EXPECT_LE(mean_in_flight, concurrency + 1e-9);
    EXPECT_GT(mean_in_flight, previous_in_flight);
    EXPECT_GT(m.e2e.mean, previous_e2e);
    previous_in_flight = mean_in_flight;
    previous_e2e = m.e2e.mean;
  }
}

TEST(ClosedLoop, SessionTurnsWaitForThePreviousAnswer) {
  const nlohmann::json sessions = {{"kind", "sessions"},
                                   {"closed_loop", true},
                                   {"session_rate", 2.0},
                                   {"turns", {{"dist", "uniform"}, {"min", 2}, {"max", 4}}},
                                   {"think_time_s", {{"dist", "exponential"}, {"mean", 0.5}}},
                                   {"system_prompt_tokens", 256},
                                   {"duration_s", 20}};
  RunResult r = run_scenario(scenario_of(sessions));
  expect_all_finished(r);
  int64_t num_later_turns = 0;
  for (size_t i = 0; i < r.records.size(); ++i) {
    const Request& req = r.table.requests[i];
    if (req.turn == 0) {
      EXPECT_TRUE(req.deps.empty());
      continue;
    }
    ++num_later_turns;
    ASSERT_EQ(req.deps.size(), 1u);
    const auto previous = static_cast<size_t>(req.deps[0]);
    EXPECT_EQ(r.table.requests[previous].turn, req.turn - 1);
    EXPECT_EQ(r.records[i].arrival_ns,
              r.records[previous].finish_ns + std::llround(req.think_time_s * 1e9))
        << "request " << i;
  }
  EXPECT_GT(num_later_turns, 20);
}

TEST(Warmup, MetricsCoverOnlyTheKeptRequestsAndSummaryStatesWhatWasLeftOut) {
  const nlohmann::json generator = closed_loop(6, 90, 0.05, 512, 48);
  const Scenario s =
      scenario_of(generator, {{"warmup_s", 1.5}, {"exclude_first_per_client", true}});
  RunResult r = run_scenario(s);
  expect_all_finished(r);
  // By hand: kept = arrived at or after 1.5 s and not a client's first request.
  int64_t num_kept = 0, num_early = 0, num_first = 0, num_excluded = 0, num_itl = 0;
  int64_t input_tokens = 0, output_tokens = 0, window_start_ns = r.end_ns;
  double e2e_sum = 0.0, ttft_max = 0.0;
  for (size_t i = 0; i < r.records.size(); ++i) {
    const RequestRecord& rec = r.records[i];
    const Request& req = r.table.requests[i];
    const bool early = rec.arrival_ns < 1'500'000'000;
    const bool first = req.turn == 0;
    num_early += early ? 1 : 0;
    num_first += first ? 1 : 0;
    if (early || first) {
      ++num_excluded;
      continue;
    }
    ++num_kept;
    input_tokens += req.prompt_tokens;
    output_tokens += rec.num_output_tokens_done;
    num_itl += rec.num_output_tokens_done - 1;
    window_start_ns = std::min(window_start_ns, rec.arrival_ns);
    e2e_sum += static_cast<double>(rec.finish_ns - rec.arrival_ns) / 1e9;
    ttft_max = std::max(ttft_max, static_cast<double>(rec.first_token_ns - rec.arrival_ns) / 1e9);
  }
  ASSERT_GT(num_kept, 30);
  ASSERT_GT(num_early, num_first) << "the warm-up must cut beyond the first requests";
  const RunMetrics m = compute_metrics(s, r);
  EXPECT_EQ(m.num_requests, num_kept);
  EXPECT_EQ(m.num_finished, num_kept);
  EXPECT_EQ(m.num_input_tokens, input_tokens);
  EXPECT_EQ(m.num_output_tokens, output_tokens);
  EXPECT_EQ(m.ttft.count, num_kept);
  EXPECT_EQ(m.e2e.count, num_kept);
  EXPECT_EQ(m.itl.count, num_itl);
  EXPECT_NEAR(m.e2e.mean, e2e_sum / static_cast<double>(num_kept), 1e-9);
  EXPECT_DOUBLE_EQ(m.ttft.max, ttft_max);
  const double duration_s = static_cast<double>(r.end_ns - window_start_ns) / 1e9;
  EXPECT_DOUBLE_EQ(m.duration_s, duration_s);
  EXPECT_DOUBLE_EQ(m.request_throughput_rps, static_cast<double>(num_kept) / duration_s);
  EXPECT_DOUBLE_EQ(m.output_tokens_per_s, static_cast<double>(output_tokens) / duration_s);
  EXPECT_EQ(m.warmup.num_excluded, num_excluded);
  EXPECT_EQ(num_kept + num_excluded, 90);

  const nlohmann::ordered_json warmup = summary_json(s, r, m)["metrics"]["warmup"];
  EXPECT_EQ(warmup["warmup_s"], 1.5);
  EXPECT_EQ(warmup["exclude_first_per_client"], true);
  EXPECT_EQ(warmup["num_excluded"], num_excluded);
  EXPECT_EQ(warmup["num_before_warmup"], num_early);
  EXPECT_EQ(warmup["num_first_per_client"], num_first);
  EXPECT_EQ(num_first, 6);
  EXPECT_DOUBLE_EQ(warmup["window_start_s"].get<double>(),
                   static_cast<double>(window_start_ns) / 1e9);
  // Costs still count every request's tokens: the run paid for them all.
  int64_t all_tokens = 0;
  for (size_t i = 0; i < r.records.size(); ++i) {
    all_tokens += r.table.requests[i].prompt_tokens + r.records[i].num_output_tokens_done;
  }
  ASSERT_TRUE(m.dollars_per_1m_tokens);
  EXPECT_DOUBLE_EQ(*m.dollars_per_1m_tokens, m.dollars / (static_cast<double>(all_tokens) * 1e-6));
}

TEST(Warmup, NoWarmupChangesNothing) {
  const nlohmann::json generator = closed_loop(4, 40, 0.0, 256, 32);
  const Scenario plain = scenario_of(generator);
  const Scenario zero =
      scenario_of(generator, {{"warmup_s", 0}, {"exclude_first_per_client", false}});
  RunResult a = run_scenario(plain);
  RunResult b = run_scenario(zero);
  const RunMetrics ma = compute_metrics(plain, a);
  const RunMetrics mb = compute_metrics(zero, b);
  EXPECT_EQ(ma.num_requests, 40);
  EXPECT_EQ(ma.warmup.num_excluded, 0);
  EXPECT_EQ(ma.duration_s, static_cast<double>(a.end_ns) / 1e9);
  EXPECT_EQ(summary_json(plain, a, ma)["metrics"].dump(),
            summary_json(zero, b, mb)["metrics"].dump());
}

TEST(ClosedLoop, TheExampleIsTheBenchmarkShape) {
  const Scenario s =
      load_scenario_file(TIDAL_SOURCE_DIR "/examples/closed-loop/qwen3-32b-c64.json");
  RunResult r = run_scenario(s);
  ASSERT_EQ(r.records.size(), 640u);
  expect_all_finished(r);
  EXPECT_EQ(max_in_flight(r), 64);
  for (const Request& req : r.table.requests) {
    ASSERT_EQ(req.prompt_tokens, 1024);
    ASSERT_EQ(req.output_tokens, 1024);
  }
  const RunMetrics m = compute_metrics(s, r);
  EXPECT_EQ(m.warmup.num_first_per_client, 64);
  EXPECT_EQ(m.num_requests, 640 - 64);
}

TEST(Warmup, ScenarioKeysAreChecked) {
  const nlohmann::json generator = closed_loop(2, 4, 0.0, 16, 2);
  auto error_of = [&](const nlohmann::json& metrics) {
    try {
      scenario_of(generator, metrics);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error_of({{"warmup_s", -1}}), "scenario.json: metrics.warmup_s: must be >= 0, got -1");
  EXPECT_EQ(error_of({{"exclude_first_per_client", 1}}),
            "scenario.json: metrics.exclude_first_per_client: expected true or false, got an "
            "integer 1");
  EXPECT_EQ(error_of({{"warm_up_s", 1}}).rfind("scenario.json: metrics.warm_up_s: unknown key", 0),
            0u)
      << error_of({{"warm_up_s", 1}});
  const Scenario s = scenario_of(generator, {{"warmup_s", 3}, {"exclude_first_per_client", true}});
  EXPECT_EQ(s.metrics.warmup_s, 3.0);
  EXPECT_TRUE(s.metrics.exclude_first_per_client);
}

}  // namespace
}  // namespace tidal::sim
