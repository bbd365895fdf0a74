// Autoscaler policies and their spec: demand, delays, loading replicas, bounds, buffer, plan.
#include "sim/fleet/autoscaler.h"

#include <gtest/gtest.h>

#include "base/input_error.h"

namespace tidal::fleet {
namespace {

constexpr int64_t kS = 1'000'000'000;
using S = LifecycleState;

AutoscalerSpec parse(const nlohmann::json& json) {
  return parse_autoscaler_spec(json, "scenario.json", "fleet.pools[0].autoscaler");
}

std::string parse_error(const nlohmann::json& json) {
  try {
    parse(json);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

FleetObservation observe(int64_t time_s, int32_t warm, int32_t loading, int64_t running,
                         int64_t waiting) {
  FleetObservation observation;
  observation.time_ns = time_s * kS;
  observation.num_replicas_by_state[static_cast<size_t>(S::warm)] = warm;
  observation.num_replicas_by_state[static_cast<size_t>(S::loading)] = loading;
  observation.num_running = running;
  observation.num_waiting_at_replicas = waiting;
  return observation;
}

int32_t decide(Autoscaler& autoscaler, const FleetObservation& observation) {
  return autoscaler.decide(observation).num_desired_replicas;
}

TEST(Autoscaler, RegistryNamesEveryPolicy) {
  const std::vector<std::string_view> expected{"fixed", "target_concurrency", "queue_depth",
                                               "latency_slo", "scheduled"};
  EXPECT_EQ(std::vector<std::string_view>(autoscaler_names().begin(), autoscaler_names().end()),
            expected);
}

TEST(Autoscaler, FixedKeepsTheInitialCount) {
  auto autoscaler = make_autoscaler(parse({{"policy", "fixed"}}), 3);
  EXPECT_EQ(decide(*autoscaler, observe(0, 3, 0, 500, 900)), 3);
  EXPECT_EQ(decide(*autoscaler, observe(60, 1, 0, 0, 0)), 3);  // replaces lost replicas
}

TEST(Autoscaler, TargetConcurrencySizesForDemandPlusBuffer) {
  auto autoscaler = make_autoscaler(parse({{"policy", "target_concurrency"},
                                           {"target_inputs", 8},
                                           {"max_inputs", 12},
                                           {"buffer_replicas", 2},
                                           {"max_replicas", 20},
                                           {"scale_down_window_s", 0}}),
                                    1);
  EXPECT_EQ(decide(*autoscaler, observe(0, 1, 0, 12, 21)), 7);  // ceil(33 / 8) + 2
  FleetObservation queued = observe(15, 7, 0, 56, 0);
  queued.num_queued_at_router = 40;
  EXPECT_EQ(decide(*autoscaler, queued), 14);                   // ceil(96 / 8) + 2
  EXPECT_EQ(decide(*autoscaler, observe(30, 14, 0, 0, 0)), 2);  // idle: the buffer remains
}

TEST(Autoscaler, ReactsWithinItsConfiguredDelays) {
  auto autoscaler = make_autoscaler(parse({{"policy", "target_concurrency"},
                                           {"target_inputs", 10},
                                           {"scale_up_delay_s", 30},
                                           {"scale_down_delay_s", 120},
                                           {"scale_down_window_s", 60}}),
                                    2);
  // Demand for 2 replicas, then a step to 6 at t = 100 s; evaluations every 15 s.
  std::vector<std::pair<int64_t, int32_t>> decisions;  // (time s, desired)
  for (int64_t t = 0; t <= 600; t += 15) {
    const int64_t outstanding = t < 100 ? 20 : (t < 300 ? 60 : 10);
    decisions.emplace_back(t, decide(*autoscaler, observe(t, 2, 0, outstanding, 0)));
  }
  auto at = [&](int64_t t) {
    for (const auto& [time, desired] : decisions) {
      if (time == t) return desired;
    }
    return -1;
  };
  EXPECT_EQ(at(90), 2);
  EXPECT_EQ(at(105), 2);  // demand seen at 105, not yet sustained 30 s
  EXPECT_EQ(at(120), 2);
  EXPECT_EQ(at(135), 6);  // 105 + 30 s
  // Demand drops at t = 300 (first seen at 300): the window (60 s) and the delay since the
  // last scale-up (135 + 120 = 255) both allow 1 replica from 360 on.
  EXPECT_EQ(at(345), 6);
  EXPECT_EQ(at(360), 1);
}

TEST(Autoscaler, DoesNotOverScaleWhileReplicasLoad) {
  // Demand-based policies: the answer depends on demand only, not on how many replicas load.
  auto concurrency = make_autoscaler(
      parse({{"policy", "target_concurrency"}, {"target_inputs", 10}, {"max_replicas", 50}}), 1);
  EXPECT_EQ(decide(*concurrency, observe(0, 1, 0, 10, 30)), 4);
  for (int64_t t = 15; t <= 120; t += 15) {
    EXPECT_EQ(decide(*concurrency, observe(t, 1, 3, 10, 30)), 4) << t;
  }
  auto queue = make_autoscaler(
      parse({{"policy", "queue_depth"}, {"scale_up_waiting_per_replica", 4}, {"max_replicas", 50}}),
      1);
  EXPECT_EQ(decide(*queue, observe(0, 1, 0, 8, 20)), 5);
  for (int64_t t = 15; t <= 120; t += 15) {
    EXPECT_EQ(decide(*queue, observe(t, 1, 4, 8, 20)), 5) << t;  // queue shared by 5
  }
  // Latency feedback: slow TTFTs while replicas start do not ask for more.
  auto latency = make_autoscaler(
      parse({{"policy", "latency_slo"}, {"target_ttft_p90_s", 1.0}, {"max_replicas", 50}}), 2);
  const std::vector<double> slow(20, 3.0);
  FleetObservation first = observe(0, 2, 0, 30, 30);
  first.new_ttft_s = slow;
  EXPECT_EQ(decide(*latency, first), 4);  // 2 warm * min(3, max factor 2)
  for (int64_t t = 15; t <= 120; t += 15) {
    FleetObservation loading = observe(t, 2, 2, 30, 30);
    loading.new_ttft_s = slow;
    EXPECT_EQ(decide(*latency, loading), 4) << t;
  }
}

TEST(Autoscaler, RespectsMinMaxAndBuffer) {
  auto autoscaler = make_autoscaler(parse({{"policy", "target_concurrency"},
                                           {"target_inputs", 1},
                                           {"min_replicas", 2},
                                           {"max_replicas", 5},
                                           {"buffer_replicas", 1},
                                           {"scale_down_window_s", 0}}),
                                    0);
  EXPECT_EQ(decide(*autoscaler, observe(0, 0, 0, 0, 0)), 2);
  EXPECT_EQ(decide(*autoscaler, observe(15, 2, 0, 2, 0)), 3);
  EXPECT_EQ(decide(*autoscaler, observe(30, 3, 0, 100, 100)), 5);
  EXPECT_EQ(decide(*autoscaler, observe(45, 5, 0, 0, 0)), 2);
}

TEST(Autoscaler, QueueDepthStepsDownOneReplicaPerWindow) {
  auto autoscaler = make_autoscaler(parse({{"policy", "queue_depth"},
                                           {"scale_up_waiting_per_replica", 4},
                                           {"scale_down_running_per_replica", 8},
                                           {"scale_down_window_s", 30}}),
                                    4);
  EXPECT_EQ(decide(*autoscaler, observe(0, 4, 0, 10, 0)), 4);
  EXPECT_EQ(decide(*autoscaler, observe(15, 4, 0, 10, 0)), 4);
  EXPECT_EQ(decide(*autoscaler, observe(30, 4, 0, 10, 0)), 3);
  EXPECT_EQ(decide(*autoscaler, observe(45, 3, 0, 10, 0)), 3);
  EXPECT_EQ(decide(*autoscaler, observe(60, 3, 0, 10, 0)), 3);  // 3 wanted at 30 s: in the window
  EXPECT_EQ(decide(*autoscaler, observe(75, 3, 0, 10, 0)), 2);
  // Two replicas could not carry 10 running at 8 each: it stops there.
  EXPECT_EQ(decide(*autoscaler, observe(90, 2, 0, 10, 0)), 2);
  EXPECT_EQ(decide(*autoscaler, observe(200, 2, 0, 10, 0)), 2);
  // Scale from zero as soon as work waits.
  auto from_zero = make_autoscaler(parse({{"policy", "queue_depth"}}), 0);
  EXPECT_EQ(decide(*from_zero, observe(0, 0, 0, 0, 1)), 1);
}

TEST(Autoscaler, LatencySloFollowsTheWindowP90) {
  auto autoscaler = make_autoscaler(parse({{"policy", "latency_slo"},
                                           {"target_ttft_p90_s", 0.5},
                                           {"latency_window_s", 60},
                                           {"scale_down_ttft_ratio", 0.5},
                                           {"max_scale_up_factor", 4},
                                           {"scale_down_window_s", 0}}),
                                    3);
  // p90 of 1..10 (x 0.1 s) by nearest rank is 0.9 s: 1.8x the target.
  std::vector<double> ttft;
  for (int i = 1; i <= 10; ++i) ttft.push_back(0.1 * i);
  FleetObservation slow = observe(0, 3, 0, 40, 10);
  slow.new_ttft_s = ttft;
  EXPECT_EQ(decide(*autoscaler, slow), 6);  // ceil(3 * 1.8)
  // Within target: hold.
  const std::vector<double> ok(10, 0.4);
  FleetObservation steady = observe(120, 6, 0, 40, 0);
  steady.new_ttft_s = ok;
  EXPECT_EQ(decide(*autoscaler, steady), 6);
  // Fast: one fewer per evaluation.
  const std::vector<double> fast(10, 0.1);
  FleetObservation quick = observe(240, 6, 0, 10, 0);
  quick.new_ttft_s = fast;
  EXPECT_EQ(decide(*autoscaler, quick), 5);
  // The window forgets old samples; with nothing outstanding the pool shrinks.
  EXPECT_EQ(decide(*autoscaler, observe(400, 5, 0, 0, 0)), 4);
  // Nothing measured but work waiting (e.g. no warm replica yet): at least one replica.
  auto empty = make_autoscaler(parse({{"policy", "latency_slo"}}), 0);
  EXPECT_EQ(decide(*empty, observe(0, 0, 0, 0, 3)), 1);
}

TEST(Autoscaler, ScheduledFollowsTheDailyPlan) {
  auto autoscaler = make_autoscaler(parse({{"policy", "scheduled"},
                                           {"start_hour", 6},
                                           {"schedule",
                                            {{{"hour", 7}, {"replicas", 2}},
                                             {{"hour", 8.5}, {"replicas", 10}},
                                             {{"hour", 20}, {"replicas", 4}}}}}),
                                    0);
  auto at_hour = [&](double hours_since_start) {
    return decide(*autoscaler, observe(static_cast<int64_t>(hours_since_start * 3600), 0, 0, 0, 0));
  };
  EXPECT_EQ(at_hour(0), 4);     // 06:00: yesterday's 20:00 point
  EXPECT_EQ(at_hour(1), 2);     // 07:00
  EXPECT_EQ(at_hour(2.5), 10);  // 08:30
  EXPECT_EQ(at_hour(14), 4);    // 20:00
  EXPECT_EQ(at_hour(24), 4);    // 06:00 the next day
  EXPECT_EQ(at_hour(26.5), 10);
  auto ahead = make_autoscaler(
      parse({{"policy", "scheduled"},
             {"lead_s", 1800},
             {"schedule", {{{"hour", 0}, {"replicas", 1}}, {{"hour", 9}, {"replicas", 8}}}}}),
      0);
  EXPECT_EQ(decide(*ahead, observe(8 * 3600, 0, 0, 0, 0)), 1);
  EXPECT_EQ(decide(*ahead, observe(8 * 3600 + 1800, 0, 0, 0, 0)), 8);  // 08:30, 30 min ahead
}

TEST(Autoscaler, SameObservationsSameDecisions) {
  const AutoscalerSpec spec = parse({{"policy", "latency_slo"}, {"scale_up_delay_s", 20}});
  auto a = make_autoscaler(spec, 2);
  auto b = make_autoscaler(spec, 2);
  for (int64_t t = 0; t < 600; t += 15) {
    const std::vector<double> ttft(static_cast<size_t>(t % 7), 0.2 * static_cast<double>(t % 11));
    FleetObservation observation = observe(t, 2 + static_cast<int32_t>(t % 3), 0, t % 13, t % 5);
    observation.new_ttft_s = ttft;
    EXPECT_EQ(decide(*a, observation), decide(*b, observation));
  }
}

TEST(Autoscaler, ParsesDefaults) {
  const AutoscalerSpec spec = parse(nlohmann::json::object());
  EXPECT_EQ(spec.policy, "fixed");
  EXPECT_DOUBLE_EQ(spec.evaluation_interval_s, 15);
  const AutoscalerSpec concurrency = parse({{"policy", "target_concurrency"}});
  EXPECT_EQ(concurrency.min_replicas, 0);
  EXPECT_EQ(concurrency.max_replicas, 64);
  EXPECT_DOUBLE_EQ(concurrency.scale_down_window_s, 300);
  EXPECT_FALSE(concurrency.max_inputs.has_value());
  EXPECT_EQ(parse({{"policy", "target_concurrency"}, {"max_inputs", 32}}).max_inputs, 32);
}

TEST(Autoscaler, BadSpecsNameTheJsonPath) {
  EXPECT_EQ(parse_error({{"policy", "magic"}}),
            "scenario.json: fleet.pools[0].autoscaler.policy: unknown autoscaler \"magic\"; "
            "expected one of fixed, target_concurrency, queue_depth, latency_slo, scheduled");
  EXPECT_EQ(parse_error({{"policy", "fixed"}, {"max_replicas", 4}}),
            "scenario.json: fleet.pools[0].autoscaler.max_replicas: not a key of policy fixed "
            "(policies using it: target_concurrency, queue_depth, latency_slo)");
  EXPECT_EQ(parse_error({{"policy", "queue_depth"}, {"target_inputs", 4}}),
            "scenario.json: fleet.pools[0].autoscaler.target_inputs: not a key of policy "
            "queue_depth (policies using it: target_concurrency)");
  EXPECT_EQ(parse_error({{"policy", "queue_depth"}, {"speed", 4}}),
            "scenario.json: fleet.pools[0].autoscaler.speed: unknown key");
  EXPECT_EQ(
      parse_error({{"policy", "target_concurrency"}, {"min_replicas", 5}, {"max_replicas", 2}}),
      "scenario.json: fleet.pools[0].autoscaler.min_replicas: 5 exceeds max_replicas 2");
  EXPECT_EQ(
      parse_error({{"policy", "target_concurrency"}, {"target_inputs", 20}, {"max_inputs", 10}}),
      "scenario.json: fleet.pools[0].autoscaler.target_inputs: 20 exceeds max_inputs 10");
  EXPECT_EQ(parse_error({{"policy", "latency_slo"}, {"max_scale_up_factor", 0.5}}),
            "scenario.json: fleet.pools[0].autoscaler.max_scale_up_factor: must be >= 1 (got 0.5)");
  EXPECT_EQ(parse_error({{"policy", "scheduled"}}),
            "scenario.json: fleet.pools[0].autoscaler.schedule: missing");
  EXPECT_EQ(
      parse_error({{"policy", "scheduled"},
                   {"schedule", {{{"hour", 9}, {"replicas", 1}}, {{"hour", 8}, {"replicas", 2}}}}}),
      "scenario.json: fleet.pools[0].autoscaler.schedule[1].hour: must be later than the "
      "previous point's hour 9");
  EXPECT_EQ(
      parse_error({{"policy", "scheduled"}, {"schedule", {{{"hour", 24}, {"replicas", 1}}}}}),
      "scenario.json: fleet.pools[0].autoscaler.schedule[0].hour: must be in [0, 24) (got 24)");
  EXPECT_EQ(parse_error({{"policy", "scheduled"}, {"schedule", {{{"hour", 1}}}}}),
            "scenario.json: fleet.pools[0].autoscaler.schedule[0].replicas: missing");
  EXPECT_EQ(parse_error({{"policy", "scheduled"}, {"schedule", nlohmann::json::array()}}),
            "scenario.json: fleet.pools[0].autoscaler.schedule: must be a non-empty array of "
            "{hour, replicas}");
  EXPECT_EQ(parse_error({{"evaluation_interval_s", 0}}),
            "scenario.json: fleet.pools[0].autoscaler.evaluation_interval_s: must be > 0 (got 0)");
}

}  // namespace
}  // namespace tidal::fleet
