// Strict reading of one JSON object from a scenario file: typed getters with defaults, every
// error an InputError naming the file and the key's JSON path ("scenario.json:
// fleet.pools[0].tp: expected an integer, got \"2\""), and finish() rejecting keys nobody read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tidal::sim {

class JsonObject {
 public:
  // `path` is the object's own JSON path ("" for the root, "fleet.pools[0]", ...); `file` the
  // file label that starts every message. Throws unless `value` is an object.
  JsonObject(const nlohmann::json& value, std::string path, std::string file);

  bool has(std::string_view key) const;
  std::string path_of(std::string_view key) const;
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }

  // Typed getters; the default applies only when the key is absent (null is a type error).
  double number(std::string_view key, double default_value);
  // Keys without a default value: absent or null both mean "not given".
  std::optional<double> optional_number(std::string_view key);
  std::optional<std::string> optional_string(std::string_view key);
  int64_t integer(std::string_view key, int64_t default_value);
  bool boolean(std::string_view key, bool default_value);
  std::string string(std::string_view key, const std::string& default_value);
  std::string required_string(std::string_view key);
  // The raw value of a key (marked as read), or nullptr when absent.
  const nlohmann::json* child(std::string_view key);

  // Range helpers: fail unless the value read for `key` satisfies the bound.
  double positive(std::string_view key, double value) const;
  double non_negative(std::string_view key, double value) const;
  int64_t at_least(std::string_view key, int64_t value, int64_t minimum) const;

  [[noreturn]] void fail(std::string_view key, const std::string& what) const;
  // Errors on the first key (in key order) that no getter read, listing the known ones.
  void finish(const std::vector<std::string_view>& known_keys) const;

 private:
  const nlohmann::json& value_;
  std::string path_;
  std::string file_;
  std::vector<std::string> read_keys_;
};

// "file: path: what" (the path part omitted when empty); used for every scenario message.
[[noreturn]] void throw_at(const std::string& file, const std::string& path,
                           const std::string& what);

// Parses the JSON text of a scenario (or another strictly read file): a syntax error names line
// and column ("file: parse error at line 3, column 7: ..."), and a key given twice in one
// object is an error naming its JSON path (nlohmann would keep the last one silently).
nlohmann::json parse_strict_json(const std::string& text, const std::string& file);

// A short rendering of a JSON value for messages: strings quoted, long values cut.
std::string describe_json(const nlohmann::json& value);

}  // namespace tidal::sim
