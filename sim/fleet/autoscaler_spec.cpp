// Parsing of AutoscalerSpec: the chosen policy decides which keys are allowed.
#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "sim/fleet/autoscaler.h"
#include "sim/fleet/spec_reading.h"

namespace tidal::fleet {

namespace {

constexpr std::array<std::string_view, 5> kPolicyNames{"fixed", "target_concurrency", "queue_depth",
                                                       "latency_slo", "scheduled"};

struct PolicyKeys {
  std::string_view policy;
  std::vector<std::string_view> keys;
};

const std::vector<std::string_view>& governor_keys() {
  static const std::vector<std::string_view> keys{"min_replicas", "max_replicas",
                                                  "scale_up_delay_s", "scale_down_delay_s",
                                                  "scale_down_window_s"};
  return keys;
}

// Keys each policy accepts besides `policy` and `evaluation_interval_s`.
const std::vector<PolicyKeys>& policy_keys() {
  static const std::vector<PolicyKeys> table = [] {
    auto governed = [](std::vector<std::string_view> own) {
      own.insert(own.end(), governor_keys().begin(), governor_keys().end());
      return own;
    };
    return std::vector<PolicyKeys>{
        {"fixed", {}},
        {"target_concurrency", governed({"target_inputs", "max_inputs", "buffer_replicas"})},
        {"queue_depth",
         governed({"scale_up_waiting_per_replica", "scale_down_running_per_replica"})},
        {"latency_slo", governed({"target_ttft_p90_s", "latency_window_s", "scale_down_ttft_ratio",
                                  "max_scale_up_factor"})},
        {"scheduled", {"schedule", "start_hour", "lead_s"}},
    };
  }();
  return table;
}

bool contains(const std::vector<std::string_view>& keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// A key that belongs to another policy gets a message saying so; unknown keys are left to
// JsonObjectReader::finish().
void check_policy_keys(const nlohmann::json& json, const PolicyKeys& chosen,
                       const perf::JsonObjectReader& reader) {
  for (auto it = json.begin(); it != json.end(); ++it) {
    const std::string& key = it.key();
    if (key == "policy" || key == "evaluation_interval_s" || contains(chosen.keys, key)) continue;
    std::string users;
    for (const PolicyKeys& other : policy_keys()) {
      if (contains(other.keys, key))
        users += (users.empty() ? "" : ", ") + std::string(other.policy);
    }
    if (!users.empty()) {
      perf::throw_json_error(reader.where(), reader.child_path(key),
                             "not a key of policy " + std::string(chosen.policy) +
                                 " (policies using it: " + users + ")");
    }
  }
}

std::vector<SchedulePoint> parse_schedule(const nlohmann::json& json, const std::string& where,
                                          const std::string& path) {
  if (!json.is_array() || json.empty()) {
    perf::throw_json_error(where, path, "must be a non-empty array of {hour, replicas}");
  }
  std::vector<SchedulePoint> schedule;  // [num_points]
  for (size_t i = 0; i < json.size(); ++i) {
    perf::JsonObjectReader point(json[i], where, fmt::format("{}[{}]", path, i));
    const double hour = point.number("hour");
    if (hour < 0 || hour >= 24) {
      perf::throw_json_error(where, point.child_path("hour"),
                             fmt::format("must be in [0, 24) (got {})", hour));
    }
    if (!schedule.empty() && hour <= schedule.back().hour) {
      perf::throw_json_error(
          where, point.child_path("hour"),
          fmt::format("must be later than the previous point's hour {}", schedule.back().hour));
    }
    if (!point.has("replicas"))
      perf::throw_json_error(where, point.child_path("replicas"), "missing");
    const auto replicas = static_cast<int32_t>(read_integer(point, "replicas", 0, 0, kMaxReplicas));
    point.finish();
    schedule.push_back(SchedulePoint{hour, replicas});
  }
  return schedule;
}

}  // namespace

std::span<const std::string_view> autoscaler_names() {
  return kPolicyNames;
}

AutoscalerSpec parse_autoscaler_spec(const nlohmann::json& json, const std::string& where,
                                     const std::string& path) {
  perf::JsonObjectReader reader(json, where, path);
  AutoscalerSpec spec;
  spec.policy = read_string(reader, "policy", spec.policy);
  const auto chosen = std::find_if(policy_keys().begin(), policy_keys().end(),
                                   [&](const PolicyKeys& p) { return p.policy == spec.policy; });
  if (chosen == policy_keys().end()) {
    std::string expected;
    for (std::string_view name : kPolicyNames) {
      expected += (expected.empty() ? "" : ", ") + std::string(name);
    }
    perf::throw_json_error(
        where, reader.child_path("policy"),
        "unknown autoscaler \"" + spec.policy + "\"; expected one of " + expected);
  }
  check_policy_keys(json, *chosen, reader);

  spec.evaluation_interval_s =
      read_duration_s(reader, "evaluation_interval_s", spec.evaluation_interval_s, Bound::positive);
  if (spec.evaluation_interval_s < kMinIntervalS) {
    perf::throw_json_error(where, reader.child_path("evaluation_interval_s"),
                           fmt::format("must be at least {:g} s (got {:g})", kMinIntervalS,
                                       spec.evaluation_interval_s));
  }
  spec.min_replicas = static_cast<int32_t>(
      read_integer(reader, "min_replicas", spec.min_replicas, 0, kMaxReplicas));
  spec.max_replicas = static_cast<int32_t>(
      read_integer(reader, "max_replicas", spec.max_replicas, 0, kMaxReplicas));
  if (spec.min_replicas > spec.max_replicas) {
    perf::throw_json_error(
        where, reader.child_path("min_replicas"),
        fmt::format("{} exceeds max_replicas {}", spec.min_replicas, spec.max_replicas));
  }
  spec.scale_up_delay_s =
      read_duration_s(reader, "scale_up_delay_s", spec.scale_up_delay_s, Bound::non_negative);
  spec.scale_down_delay_s =
      read_duration_s(reader, "scale_down_delay_s", spec.scale_down_delay_s, Bound::non_negative);
  spec.scale_down_window_s =
      read_duration_s(reader, "scale_down_window_s", spec.scale_down_window_s, Bound::non_negative);

  spec.target_inputs = read_number(reader, "target_inputs", spec.target_inputs, Bound::positive);
  if (reader.has("max_inputs")) {
    constexpr int64_t kMaxInputs = 1'000'000;  // requests one replica may hold
    spec.max_inputs = read_integer(reader, "max_inputs", 0, 1, kMaxInputs);
    if (spec.target_inputs > static_cast<double>(*spec.max_inputs)) {
      perf::throw_json_error(
          where, reader.child_path("target_inputs"),
          fmt::format("{} exceeds max_inputs {}", spec.target_inputs, *spec.max_inputs));
    }
  }
  spec.buffer_replicas = static_cast<int32_t>(
      read_integer(reader, "buffer_replicas", spec.buffer_replicas, 0, kMaxReplicas));

  spec.scale_up_waiting_per_replica = read_number(
      reader, "scale_up_waiting_per_replica", spec.scale_up_waiting_per_replica, Bound::positive);
  spec.scale_down_running_per_replica =
      read_number(reader, "scale_down_running_per_replica", spec.scale_down_running_per_replica,
                  Bound::non_negative);

  spec.target_ttft_p90_s =
      read_duration_s(reader, "target_ttft_p90_s", spec.target_ttft_p90_s, Bound::positive);
  spec.latency_window_s =
      read_duration_s(reader, "latency_window_s", spec.latency_window_s, Bound::positive);
  spec.scale_down_ttft_ratio =
      read_number(reader, "scale_down_ttft_ratio", spec.scale_down_ttft_ratio, Bound::fraction);
  spec.max_scale_up_factor =
      read_number(reader, "max_scale_up_factor", spec.max_scale_up_factor, Bound::positive);
  if (spec.max_scale_up_factor < 1) {
    perf::throw_json_error(where, reader.child_path("max_scale_up_factor"),
                           fmt::format("must be >= 1 (got {})", spec.max_scale_up_factor));
  }

  if (spec.policy == "scheduled") {
    spec.schedule = parse_schedule(reader.at("schedule"), where, reader.child_path("schedule"));
  }
  spec.start_hour = read_number(reader, "start_hour", spec.start_hour, Bound::non_negative);
  if (spec.start_hour >= 24) {
    perf::throw_json_error(where, reader.child_path("start_hour"),
                           fmt::format("must be in [0, 24) (got {})", spec.start_hour));
  }
  spec.lead_s = read_duration_s(reader, "lead_s", spec.lead_s, Bound::non_negative);
  reader.finish();
  return spec;
}

}  // namespace tidal::fleet
