// Validated access to one JSON object of a generator spec. Every key a generator reads is
// recorded, so reject_unknown_keys() can name any other key by its JSON path.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tidal::traces {

class SpecObject {
 public:
  // InputError "<path>: must be a JSON object" unless `json` is one.
  SpecObject(const nlohmann::json& json, std::string path);

  const std::string& path() const { return path_; }
  std::string key_path(std::string_view key) const { return path_ + "." + std::string(key); }
  const nlohmann::json& json() const { return json_; }

  // The value under `key` or nullptr; either way `key` becomes a known key.
  const nlohmann::json* find(std::string_view key);
  bool has(std::string_view key) { return find(key) != nullptr; }

  // A number in [min, max] (min excluded when `min_exclusive`), or `fallback` when absent.
  double number(std::string_view key, double fallback, double min = -kInfinity,
                double max = kInfinity, bool min_exclusive = false);
  std::optional<double> optional_number(std::string_view key, double min = -kInfinity,
                                        double max = kInfinity, bool min_exclusive = false);
  double required_number(std::string_view key, double min = -kInfinity, double max = kInfinity,
                         bool min_exclusive = false);
  int64_t integer(std::string_view key, int64_t fallback, int64_t min, int64_t max);
  std::optional<int64_t> optional_integer(std::string_view key, int64_t min, int64_t max);
  std::string string(std::string_view key, std::string_view fallback);
  std::optional<std::string> optional_string(std::string_view key);
  bool boolean(std::string_view key, bool fallback);

  // InputError naming the first key never asked for, and the keys that are known.
  void reject_unknown_keys() const;
  [[noreturn]] void fail(std::string_view key, const std::string& what) const;

  static constexpr double kInfinity = std::numeric_limits<double>::infinity();

 private:
  const nlohmann::json& json_;
  std::string path_;
  std::set<std::string, std::less<>> known_keys_;
};

// A path from a spec, resolved against base_dir when relative and base_dir is not empty.
std::string resolve_spec_path(const std::string& path, const std::string& base_dir);

// A JSON value for an error message, shortened.
std::string describe_json(const nlohmann::json& value);

}  // namespace tidal::traces
