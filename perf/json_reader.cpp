#include "perf/json_reader.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "base/input_error.h"

namespace tidal::perf {

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read " + what);
  std::stringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path + ": not valid JSON: " + e.what());
  }
}

void throw_json_error(const std::string& where, const std::string& path, const std::string& what) {
  std::string message = where + ": ";
  if (!path.empty()) message += path + ": ";
  throw InputError(message + what);
}

JsonObjectReader::JsonObjectReader(const nlohmann::json& object, std::string where,
                                   std::string path)
    : object_(&object), where_(std::move(where)), path_(std::move(path)) {
  if (!object.is_object()) throw_json_error(where_, path_, "must be an object");
}

std::string JsonObjectReader::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

bool JsonObjectReader::has(std::string_view key) const {
  return object_->contains(std::string(key));
}

const nlohmann::json& JsonObjectReader::at(std::string_view key) {
  auto it = object_->find(std::string(key));
  if (it == object_->end()) throw_json_error(where_, child_path(key), "missing");
  seen_.emplace(key);
  return *it;
}

double JsonObjectReader::number(std::string_view key) {
  const nlohmann::json& value = at(key);
  if (!value.is_number()) throw_json_error(where_, child_path(key), "must be a number");
  double x = value.get<double>();
  if (!std::isfinite(x)) throw_json_error(where_, child_path(key), "must be finite");
  return x;
}

int64_t JsonObjectReader::integer(std::string_view key) {
  const nlohmann::json& value = at(key);
  if (!value.is_number_integer()) throw_json_error(where_, child_path(key), "must be an integer");
  return value.get<int64_t>();
}

std::string JsonObjectReader::string(std::string_view key) {
  const nlohmann::json& value = at(key);
  if (!value.is_string()) throw_json_error(where_, child_path(key), "must be a string");
  return value.get<std::string>();
}

bool JsonObjectReader::boolean(std::string_view key) {
  const nlohmann::json& value = at(key);
  if (!value.is_boolean()) throw_json_error(where_, child_path(key), "must be true or false");
  return value.get<bool>();
}

std::vector<double> JsonObjectReader::number_array(std::string_view key) {
  const nlohmann::json& value = at(key);
  const std::string path = child_path(key);
  if (!value.is_array()) throw_json_error(where_, path, "must be an array of numbers");
  std::vector<double> out;  // [num_elements]
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string element_path = path + "[" + std::to_string(i) + "]";
    if (!value[i].is_number()) throw_json_error(where_, element_path, "must be a number");
    double x = value[i].get<double>();
    if (!std::isfinite(x)) throw_json_error(where_, element_path, "must be finite");
    out.push_back(x);
  }
  return out;
}

std::vector<int64_t> JsonObjectReader::integer_array(std::string_view key) {
  const nlohmann::json& value = at(key);
  const std::string path = child_path(key);
  if (!value.is_array()) throw_json_error(where_, path, "must be an array of integers");
  std::vector<int64_t> out;  // [num_elements]
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_number_integer()) {
      throw_json_error(where_, path + "[" + std::to_string(i) + "]", "must be an integer");
    }
    out.push_back(value[i].get<int64_t>());
  }
  return out;
}

JsonObjectReader JsonObjectReader::object(std::string_view key) {
  return JsonObjectReader(at(key), where_, child_path(key));
}

void JsonObjectReader::finish() const {
  for (auto it = object_->begin(); it != object_->end(); ++it) {
    if (seen_.find(it.key()) == seen_.end()) {
      throw_json_error(where_, child_path(it.key()), "unknown key");
    }
  }
}

}  // namespace tidal::perf
