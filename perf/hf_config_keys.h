// Typed reading of Hugging Face config.json keys. Unlike JsonObjectReader, unknown keys are fine
// (configs carry many that tidal has no use for); what is read is checked, and every error names
// the config (`where`) and the key's path inside it ("text_config.hidden_size").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tidal::perf {

class HfKeys {
 public:
  // `prefix`: the path of `object` inside the config ("" for the root, "text_config." nested).
  HfKeys(const nlohmann::json& object, std::string where, std::string prefix = "");

  // Present and not null.
  bool has(std::string_view key) const;
  // The value, or nullptr when absent (null counts as present here).
  const nlohmann::json* find(std::string_view key) const;

  // A required whole number >= min_value.
  int64_t count(std::string_view key, int64_t min_value = 1) const;
  // `fallback` when absent or null (a default Hugging Face's config class defines).
  int64_t count_or(std::string_view key, int64_t fallback, int64_t min_value = 1) const;
  // nullopt when absent or null.
  std::optional<int64_t> optional_count(std::string_view key, int64_t min_value = 0) const;
  bool flag_or(std::string_view key, bool fallback) const;
  std::string text(std::string_view key) const;
  std::optional<std::string> optional_text(std::string_view key) const;
  // A required array of strings; an absent or null one is empty when `required` is false.
  std::vector<std::string> strings(std::string_view key, bool required = true) const;
  std::vector<int64_t> counts(std::string_view key, int64_t min_value = 0) const;
  // A nested object, read with this one's `where` and a longer prefix.
  HfKeys child(std::string_view key) const;

  std::string path(std::string_view key) const { return prefix_ + std::string(key); }
  const std::string& where() const { return where_; }
  const nlohmann::json& json() const { return *object_; }

  // InputError "<where>: <prefix><key>: <what>".
  [[noreturn]] void fail(std::string_view key, const std::string& what) const;

 private:
  const nlohmann::json& required(std::string_view key, const char* expected) const;
  int64_t whole_number(std::string_view key, const nlohmann::json& value, int64_t min_value) const;

  const nlohmann::json* object_;
  std::string where_;
  std::string prefix_;
};

}  // namespace tidal::perf
