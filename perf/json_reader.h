// Strict reading of JSON objects: every key is consumed once, types are checked, and anything
// unexpected is an InputError naming the file and the JSON path.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tidal::perf {

// The JSON document in `path`; InputError "<path>: cannot read <what>" or "<path>: not valid
// JSON: ..." (`what` names the kind of file, e.g. "profile").
nlohmann::json read_json_file(const std::string& path, const std::string& what);

// "<where>: <path>: <what>" (or "<where>: <what>" when path is empty).
[[noreturn]] void throw_json_error(const std::string& where, const std::string& path,
                                   const std::string& what);

class JsonObjectReader {
 public:
  // `where` names the file; `path` is this object's JSON path ("" for the root).
  JsonObjectReader(const nlohmann::json& object, std::string where, std::string path);

  bool has(std::string_view key) const;
  const nlohmann::json& at(std::string_view key);  // required, any type
  double number(std::string_view key);
  int64_t integer(std::string_view key);
  std::string string(std::string_view key);
  bool boolean(std::string_view key);
  std::vector<double> number_array(std::string_view key);
  std::vector<int64_t> integer_array(std::string_view key);
  JsonObjectReader object(std::string_view key);
  // Throws for the first key (in key order) that no accessor asked for.
  void finish() const;

  std::string child_path(std::string_view key) const;
  const std::string& where() const { return where_; }
  const std::string& path() const { return path_; }

 private:
  const nlohmann::json* object_;
  std::string where_;
  std::string path_;
  std::set<std::string, std::less<>> seen_;
};

}  // namespace tidal::perf
