#include "reports/json_fields.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::reports {

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open (missing file?)", path));
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    const std::string what = e.what();
    const size_t at = what.find("parse error");
    throw InputError(fmt::format("{}: {}", path, at == std::string::npos ? what : what.substr(at)));
  }
}

JsonView::JsonView(const nlohmann::json& value, std::string file, std::string path)
    : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

std::string JsonView::path_of(std::string_view key) const {
  if (key.empty()) return path_.empty() ? "(root)" : path_;  // the value itself
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

void JsonView::fail(std::string_view key, const std::string& what) const {
  throw InputError(fmt::format("{}: {}: {}", file_, path_of(key), what));
}

const nlohmann::json& JsonView::field(std::string_view key) const {
  if (!value_->is_object()) {
    throw InputError(
        fmt::format("{}: {}: expected an object", file_, path_.empty() ? "(root)" : path_));
  }
  const auto it = value_->find(key);
  if (it == value_->end()) fail(key, "missing");
  return *it;
}

bool JsonView::has(std::string_view key) const {
  if (!value_->is_object()) return false;
  const auto it = value_->find(key);
  return it != value_->end() && !it->is_null();
}

JsonView JsonView::at(std::string_view key) const {
  return JsonView(field(key), file_, path_of(key));
}

JsonView JsonView::at(size_t index) const {
  if (!value_->is_array() || index >= value_->size()) {
    throw InputError(fmt::format("{}: {}[{}]: missing", file_, path_, index));
  }
  return JsonView((*value_)[index], file_, fmt::format("{}[{}]", path_, index));
}

size_t JsonView::size() const {
  if (!value_->is_array()) {
    throw InputError(
        fmt::format("{}: {}: expected an array", file_, path_.empty() ? "(root)" : path_));
  }
  return value_->size();
}

double JsonView::number(std::string_view key) const {
  const nlohmann::json& v = field(key);
  if (!v.is_number()) fail(key, fmt::format("expected a number, got {}", v.dump()));
  return v.get<double>();
}

std::optional<double> JsonView::nullable_number(std::string_view key) const {
  const nlohmann::json& v = field(key);
  if (v.is_null()) return std::nullopt;
  if (!v.is_number()) fail(key, fmt::format("expected a number or null, got {}", v.dump()));
  return v.get<double>();
}

int64_t JsonView::integer(std::string_view key) const {
  const nlohmann::json& v = field(key);
  if (!v.is_number_integer()) fail(key, fmt::format("expected an integer, got {}", v.dump()));
  return v.get<int64_t>();
}

std::string JsonView::string(std::string_view key) const {
  const nlohmann::json& v = field(key);
  if (!v.is_string()) fail(key, fmt::format("expected a string, got {}", v.dump()));
  return v.get<std::string>();
}

bool JsonView::boolean(std::string_view key) const {
  const nlohmann::json& v = field(key);
  if (!v.is_boolean()) fail(key, fmt::format("expected true or false, got {}", v.dump()));
  return v.get<bool>();
}

std::vector<std::string> JsonView::strings(std::string_view key) const {
  return read_each(*this, key, [](const JsonView& element) {
    if (!element.value().is_string()) element.fail("", "expected a string");
    return element.value().get<std::string>();
  });
}

void JsonView::read(std::string_view key, int64_t& into) const {
  into = integer(key);
}

void JsonView::read(std::string_view key, double& into) const {
  into = number(key);
}

void JsonView::read(std::string_view key, std::string& into) const {
  into = string(key);
}

void JsonView::read(std::string_view key, bool& into) const {
  into = boolean(key);
}

void JsonView::read(std::string_view key, std::optional<double>& into) const {
  into = nullable_number(key);
}

}  // namespace tidal::reports
