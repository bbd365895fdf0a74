// Optional keys with defaults and range checks, on top of perf::JsonObjectReader (which makes
// every unknown key an error). Every fleet spec parser reads its keys through these, so a bad
// value is an InputError "<where>: <json path>: must be > 0 (got -1)".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "perf/json_reader.h"

namespace tidal::fleet {

enum class Bound {
  any,           // any finite number
  non_negative,  // >= 0
  positive,      // > 0
  fraction,      // in [0, 1]
};

// The key's number when present (checked against `bound`), else `default_value`.
double read_number(perf::JsonObjectReader& reader, std::string_view key, double default_value,
                   Bound bound);
// The key's integer when present (must lie in [min_value, max_value]), else `default_value`.
int64_t read_integer(perf::JsonObjectReader& reader, std::string_view key, int64_t default_value,
                     int64_t min_value, int64_t max_value);
// A duration in seconds: read_number with `bound`, and at most kMaxDurationS so that it fits
// the event loop's int64 nanosecond clock with room to spare.
inline constexpr double kMaxDurationS = 1e9;
// The shortest periodic interval (timeline rows, peak-to-mean bins, autoscaler evaluations).
inline constexpr double kMinIntervalS = 1e-3;
// Replica counts in specs (a pool's num_replicas, an autoscaler's bounds, reserved replicas)
// are at most this: each live replica holds its own scheduler and KV pool (a few KB idle, up to a
// few MB once its KV blocks have all been used).
inline constexpr int64_t kMaxReplicas = 10'000;
double read_duration_s(perf::JsonObjectReader& reader, std::string_view key, double default_value,
                       Bound bound);
std::string read_string(perf::JsonObjectReader& reader, std::string_view key,
                        std::string_view default_value);
bool read_boolean(perf::JsonObjectReader& reader, std::string_view key, bool default_value);

// Seconds to integer nanoseconds, rounded to nearest (the event loop's clock).
int64_t seconds_to_ns(double seconds);

}  // namespace tidal::fleet
