#include "traces/spec_object.h"

#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::traces {

std::string resolve_spec_path(const std::string& path, const std::string& base_dir) {
  if (base_dir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(base_dir) / path).string();
}

std::string describe_json(const nlohmann::json& value) {
  constexpr size_t kMaxChars = 60;
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > kMaxChars) text = text.substr(0, kMaxChars) + "...";
  return text;
}

SpecObject::SpecObject(const nlohmann::json& json, std::string path)
    : json_(json), path_(std::move(path)) {
  if (!json_.is_object()) {
    throw InputError(path_ + ": must be a JSON object, got " + describe_json(json_));
  }
}

const nlohmann::json* SpecObject::find(std::string_view key) {
  known_keys_.emplace(key);
  const auto it = json_.find(key);
  return it == json_.end() ? nullptr : &*it;
}

void SpecObject::fail(std::string_view key, const std::string& what) const {
  throw InputError(key_path(key) + ": " + what);
}

std::optional<double> SpecObject::optional_number(std::string_view key, double min, double max,
                                                  bool min_exclusive) {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number()) fail(key, "must be a number, got " + describe_json(*value));
  const double number = value->get<double>();
  const bool below = min_exclusive ? !(number > min) : !(number >= min);
  if (below || number > max || !std::isfinite(number)) {
    std::string range = fmt::format("{} {}", min_exclusive ? ">" : ">=", min);
    if (std::isfinite(max)) range += fmt::format(" and <= {}", max);
    fail(key, fmt::format("must be {}, got {}", range, describe_json(*value)));
  }
  return number;
}

double SpecObject::number(std::string_view key, double fallback, double min, double max,
                          bool min_exclusive) {
  return optional_number(key, min, max, min_exclusive).value_or(fallback);
}

double SpecObject::required_number(std::string_view key, double min, double max,
                                   bool min_exclusive) {
  const std::optional<double> value = optional_number(key, min, max, min_exclusive);
  if (!value) fail(key, "missing (required)");
  return *value;
}

std::optional<int64_t> SpecObject::optional_integer(std::string_view key, int64_t min,
                                                    int64_t max) {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return std::nullopt;
  int64_t integer = 0;
  if (value->is_number_integer()) {
    if (value->is_number_unsigned() && value->get<uint64_t>() > static_cast<uint64_t>(max)) {
      fail(key, fmt::format("must be <= {}, got {}", max, describe_json(*value)));
    }
    integer = value->get<int64_t>();
  } else if (value->is_number_float() && std::trunc(value->get<double>()) == value->get<double>() &&
             std::abs(value->get<double>()) < 9e18) {
    integer = static_cast<int64_t>(value->get<double>());
  } else {
    fail(key, "must be an integer, got " + describe_json(*value));
  }
  if (integer < min || integer > max) {
    fail(key, fmt::format("must be in [{}, {}], got {}", min, max, integer));
  }
  return integer;
}

int64_t SpecObject::integer(std::string_view key, int64_t fallback, int64_t min, int64_t max) {
  return optional_integer(key, min, max).value_or(fallback);
}

std::optional<std::string> SpecObject::optional_string(std::string_view key) {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) fail(key, "must be a string, got " + describe_json(*value));
  return value->get<std::string>();
}

std::string SpecObject::string(std::string_view key, std::string_view fallback) {
  return optional_string(key).value_or(std::string(fallback));
}

bool SpecObject::boolean(std::string_view key, bool fallback) {
  const nlohmann::json* value = find(key);
  if (value == nullptr) return fallback;
  if (!value->is_boolean()) fail(key, "must be true or false, got " + describe_json(*value));
  return value->get<bool>();
}

void SpecObject::reject_unknown_keys() const {
  for (const auto& [key, value] : json_.items()) {
    if (known_keys_.contains(key)) continue;
    std::string known;
    for (const std::string& name : known_keys_) {
      if (!known.empty()) known += ", ";
      known += name;
    }
    fail(key, "unknown key (known here: " + known + ")");
  }
}

}  // namespace tidal::traces
