#include "sim/fleet/spec_reading.h"

#include <cmath>

#include <fmt/format.h>

namespace tidal::fleet {

double read_number(perf::JsonObjectReader& reader, std::string_view key, double default_value,
                   Bound bound) {
  if (!reader.has(key)) return default_value;
  const double value = reader.number(key);
  const char* rule = nullptr;
  switch (bound) {
    case Bound::any:
      break;
    case Bound::non_negative:
      if (value < 0) rule = "must be >= 0";
      break;
    case Bound::positive:
      if (value <= 0) rule = "must be > 0";
      break;
    case Bound::fraction:
      if (value < 0 || value > 1) rule = "must be between 0 and 1";
      break;
  }
  if (rule != nullptr) {
    perf::throw_json_error(reader.where(), reader.child_path(key),
                           fmt::format("{} (got {})", rule, value));
  }
  return value;
}

double read_duration_s(perf::JsonObjectReader& reader, std::string_view key, double default_value,
                       Bound bound) {
  const double value = read_number(reader, key, default_value, bound);
  if (value > kMaxDurationS) {
    perf::throw_json_error(reader.where(), reader.child_path(key),
                           fmt::format("must be at most {:g} s (got {:g})", kMaxDurationS, value));
  }
  return value;
}

int64_t read_integer(perf::JsonObjectReader& reader, std::string_view key, int64_t default_value,
                     int64_t min_value, int64_t max_value) {
  if (!reader.has(key)) return default_value;
  const int64_t value = reader.integer(key);
  if (value < min_value || value > max_value) {
    perf::throw_json_error(
        reader.where(), reader.child_path(key),
        fmt::format("must be between {} and {} (got {})", min_value, max_value, value));
  }
  return value;
}

std::string read_string(perf::JsonObjectReader& reader, std::string_view key,
                        std::string_view default_value) {
  if (!reader.has(key)) return std::string(default_value);
  return reader.string(key);
}

bool read_boolean(perf::JsonObjectReader& reader, std::string_view key, bool default_value) {
  if (!reader.has(key)) return default_value;
  return reader.boolean(key);
}

int64_t seconds_to_ns(double seconds) {
  return std::llround(seconds * 1e9);
}

}  // namespace tidal::fleet
