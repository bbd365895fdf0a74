// Strict reading of fields from a JSON file tidal wrote (summary.json, validation.json,
// plan.json): a missing field or one of the wrong type is an InputError naming the file and the
// field's JSON path ("out/summary.json: metrics.ttft.p99_s: missing").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace tidal::reports {

// Reads and parses a JSON file; InputError on a missing file or a syntax error.
nlohmann::json read_json_file(const std::string& path);

// A JSON value paired with the file it came from and its own path inside the file.
class JsonView {
 public:
  JsonView(const nlohmann::json& value, std::string file, std::string path = "");

  bool has(std::string_view key) const;  // present and not null
  JsonView at(std::string_view key) const;
  JsonView at(size_t index) const;
  size_t size() const;  // elements of an array; InputError for anything else

  double number(std::string_view key) const;
  // Empty when the key is null; InputError when absent.
  std::optional<double> nullable_number(std::string_view key) const;
  int64_t integer(std::string_view key) const;
  std::string string(std::string_view key) const;
  bool boolean(std::string_view key) const;
  // The array of strings at `key`.
  std::vector<std::string> strings(std::string_view key) const;
  // The reader above that `into`'s type names: integer, number, string, boolean, and
  // nullable_number for an optional.
  void read(std::string_view key, int64_t& into) const;
  void read(std::string_view key, double& into) const;
  void read(std::string_view key, std::string& into) const;
  void read(std::string_view key, bool& into) const;
  void read(std::string_view key, std::optional<double>& into) const;

  const nlohmann::json& value() const { return *value_; }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  std::string path_of(std::string_view key) const;
  [[noreturn]] void fail(std::string_view key, const std::string& what) const;

 private:
  const nlohmann::json& field(std::string_view key) const;

  const nlohmann::json* value_;
  std::string file_;
  std::string path_;
};

// Reads fields of the object `v` into `out`, given as pairs (JSON key, member of T), in the
// order given (the first bad one is the error), each by its member's type (JsonView::read).
template <typename T, typename Member, typename... KeysAndMembers>
void read_fields(const JsonView& v, T& out, std::string_view key, Member T::*member,
                 KeysAndMembers... rest) {
  v.read(key, out.*member);
  if constexpr (sizeof...(rest) > 0) read_fields(v, out, rest...);
}

// `read(element)` of each element of the array at `key`, in order.
template <typename Read>
auto read_each(const JsonView& v, std::string_view key, const Read& read) {
  const JsonView array = v.at(key);
  std::vector<std::decay_t<decltype(read(array))>> out;
  for (size_t i = 0; i < array.size(); ++i) out.push_back(read(array.at(i)));
  return out;
}

}  // namespace tidal::reports
