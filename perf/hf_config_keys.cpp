#include "perf/hf_config_keys.h"

#include <cmath>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::perf {

HfKeys::HfKeys(const nlohmann::json& object, std::string where, std::string prefix)
    : object_(&object), where_(std::move(where)), prefix_(std::move(prefix)) {
  if (!object.is_object()) {
    const std::string self = prefix_.empty() ? "" : prefix_.substr(0, prefix_.size() - 1) + ": ";
    throw InputError(
        fmt::format("{}: {}expected a JSON object, got {}", where_, self, object.type_name()));
  }
}

void HfKeys::fail(std::string_view key, const std::string& what) const {
  throw InputError(fmt::format("{}: {}: {}", where_, path(key), what));
}

const nlohmann::json* HfKeys::find(std::string_view key) const {
  auto it = object_->find(std::string(key));
  return it == object_->end() ? nullptr : &*it;
}

bool HfKeys::has(std::string_view key) const {
  const nlohmann::json* value = find(key);
  return value != nullptr && !value->is_null();
}

const nlohmann::json& HfKeys::required(std::string_view key, const char* expected) const {
  const nlohmann::json* value = find(key);
  if (value == nullptr) fail(key, "absent");
  if (value->is_null()) fail(key, fmt::format("expected {}, got null", expected));
  return *value;
}

int64_t HfKeys::whole_number(std::string_view key, const nlohmann::json& value,
                             int64_t min_value) const {
  if (!value.is_number()) fail(key, fmt::format("expected a number, got {}", value.type_name()));
  int64_t n = 0;
  if (value.is_number_integer()) {
    n = value.get<int64_t>();
  } else {
    const double x = value.get<double>();
    if (!std::isfinite(x) || x != std::floor(x) || std::fabs(x) > 9.0e15) {
      fail(key, fmt::format("expected a whole number, got {}", value.dump()));
    }
    n = static_cast<int64_t>(x);
  }
  if (n < min_value) fail(key, fmt::format("must be >= {} (got {})", min_value, n));
  return n;
}

int64_t HfKeys::count(std::string_view key, int64_t min_value) const {
  return whole_number(key, required(key, "a number"), min_value);
}

int64_t HfKeys::count_or(std::string_view key, int64_t fallback, int64_t min_value) const {
  return has(key) ? whole_number(key, *find(key), min_value) : fallback;
}

std::optional<int64_t> HfKeys::optional_count(std::string_view key, int64_t min_value) const {
  if (!has(key)) return std::nullopt;
  return whole_number(key, *find(key), min_value);
}

bool HfKeys::flag_or(std::string_view key, bool fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& value = *find(key);
  if (!value.is_boolean()) {
    fail(key, fmt::format("expected true or false, got {}", value.type_name()));
  }
  return value.get<bool>();
}

std::string HfKeys::text(std::string_view key) const {
  const nlohmann::json& value = required(key, "a string");
  if (!value.is_string()) fail(key, fmt::format("expected a string, got {}", value.type_name()));
  return value.get<std::string>();
}

std::optional<std::string> HfKeys::optional_text(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return text(key);
}

std::vector<std::string> HfKeys::strings(std::string_view key, bool required_key) const {
  if (!required_key && !has(key)) return {};
  const nlohmann::json& value = required(key, "an array of strings");
  if (!value.is_array()) {
    fail(key, fmt::format("expected an array of strings, got {}", value.type_name()));
  }
  std::vector<std::string> out;  // [elements]
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) {
      fail(fmt::format("{}[{}]", key, i),
           fmt::format("expected a string, got {}", value[i].type_name()));
    }
    out.push_back(value[i].get<std::string>());
  }
  return out;
}

std::vector<int64_t> HfKeys::counts(std::string_view key, int64_t min_value) const {
  const nlohmann::json& value = required(key, "an array of numbers");
  if (!value.is_array()) {
    fail(key, fmt::format("expected an array of numbers, got {}", value.type_name()));
  }
  std::vector<int64_t> out;  // [elements]
  for (std::size_t i = 0; i < value.size(); ++i) {
    out.push_back(whole_number(fmt::format("{}[{}]", key, i), value[i], min_value));
  }
  return out;
}

HfKeys HfKeys::child(std::string_view key) const {
  const nlohmann::json& value = required(key, "an object");
  if (!value.is_object()) fail(key, fmt::format("expected an object, got {}", value.type_name()));
  return HfKeys(value, where_, path(key) + ".");
}

}  // namespace tidal::perf
