#include "sim/json_object.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::sim {
namespace {

const char* type_name(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

// "a string \"x\"", "an integer 3", "null": what a value is, for messages.
std::string got(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  return fmt::format("{} {}", type_name(v), describe_json(v));
}

// Where the parser is, for parse_strict_json's messages: one frame per open object or array.
struct JsonFrame {
  bool is_array = false;
  int64_t index = -1;          // arrays: the element being read
  std::string key;             // objects: the key being read
  std::set<std::string> keys;  // objects: the keys read so far
};

std::string frames_path(const std::vector<JsonFrame>& frames) {
  std::string path;
  for (const JsonFrame& frame : frames) {
    if (frame.is_array) {
      path += fmt::format("[{}]", frame.index);
    } else {
      path += (path.empty() ? "" : ".") + frame.key;
    }
  }
  return path;
}

}  // namespace

nlohmann::json parse_strict_json(const std::string& text, const std::string& file) {
  std::vector<JsonFrame> frames;
  const auto begin_value = [&frames] {
    if (!frames.empty() && frames.back().is_array) ++frames.back().index;
  };
  const nlohmann::json::parser_callback_t track =
      [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using Event = nlohmann::json::parse_event_t;
        switch (event) {
          case Event::object_start:
          case Event::array_start:
            begin_value();
            frames.push_back(JsonFrame{event == Event::array_start, -1, {}, {}});
            break;
          case Event::key: {
            JsonFrame& frame = frames.back();
            frame.key = parsed.get<std::string>();
            if (!frame.keys.insert(frame.key).second) {
              throw_at(file, frames_path(frames), "duplicate key (each key may appear once)");
            }
            break;
          }
          case Event::value:
            begin_value();
            break;
          case Event::object_end:
          case Event::array_end:
            frames.pop_back();
            break;
        }
        return true;
      };
  try {
    return nlohmann::json::parse(text, track);
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: ...".
    const std::string what = e.what();
    const size_t at = what.find("parse error");
    throw InputError(fmt::format("{}: {}", file, at == std::string::npos ? what : what.substr(at)));
  }
}

void throw_at(const std::string& file, const std::string& path, const std::string& what) {
  if (path.empty()) throw InputError(fmt::format("{}: {}", file, what));
  throw InputError(fmt::format("{}: {}: {}", file, path, what));
}

std::string describe_json(const nlohmann::json& value) {
  std::string text = value.dump();
  constexpr size_t kMaxChars = 40;
  if (text.size() > kMaxChars) text = text.substr(0, kMaxChars) + "...";
  return text;
}

JsonObject::JsonObject(const nlohmann::json& value, std::string path, std::string file)
    : value_(value), path_(std::move(path)), file_(std::move(file)) {
  if (!value_.is_object()) {
    throw_at(file_, path_, fmt::format("expected an object, got {}", got(value_)));
  }
}

bool JsonObject::has(std::string_view key) const {
  return value_.contains(key);
}

std::string JsonObject::path_of(std::string_view key) const {
  if (key.empty()) return path_.empty() ? "(root)" : path_;  // the object itself
  if (path_.empty()) return std::string(key);
  return fmt::format("{}.{}", path_, key);
}

void JsonObject::fail(std::string_view key, const std::string& what) const {
  throw_at(file_, path_of(key), what);
}

const nlohmann::json* JsonObject::child(std::string_view key) {
  const auto it = value_.find(key);
  if (it == value_.end()) return nullptr;
  read_keys_.emplace_back(key);
  return &*it;
}

double JsonObject::number(std::string_view key, double default_value) {
  const nlohmann::json* v = child(key);
  if (v == nullptr) return default_value;
  if (v->is_null()) fail(key, "expected a number, got null");
  return *optional_number(key);
}

std::optional<double> JsonObject::optional_number(std::string_view key) {
  const nlohmann::json* v = child(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_number()) {
    fail(key, fmt::format("expected a number, got {}", got(*v)));
  }
  const double d = v->get<double>();
  if (!std::isfinite(d)) fail(key, "expected a finite number");
  return d;
}

int64_t JsonObject::integer(std::string_view key, int64_t default_value) {
  const nlohmann::json* v = child(key);
  if (v == nullptr) return default_value;
  if (v->is_number_unsigned()) {
    if (v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) fail(key, "integer out of range");
    return static_cast<int64_t>(v->get<uint64_t>());
  }
  if (v->is_number_integer()) return v->get<int64_t>();
  fail(key, fmt::format("expected an integer, got {}", got(*v)));
}

bool JsonObject::boolean(std::string_view key, bool default_value) {
  const nlohmann::json* v = child(key);
  if (v == nullptr) return default_value;
  if (!v->is_boolean()) {
    fail(key, fmt::format("expected true or false, got {}", got(*v)));
  }
  return v->get<bool>();
}

std::string JsonObject::string(std::string_view key, const std::string& default_value) {
  const nlohmann::json* v = child(key);
  if (v == nullptr) return default_value;
  if (!v->is_string()) {
    fail(key, fmt::format("expected a string, got {}", got(*v)));
  }
  return v->get<std::string>();
}

std::optional<std::string> JsonObject::optional_string(std::string_view key) {
  const nlohmann::json* v = child(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return string(key, "");
}

std::string JsonObject::required_string(std::string_view key) {
  if (!has(key)) fail(key, "missing (required)");
  return string(key, "");
}

double JsonObject::positive(std::string_view key, double value) const {
  if (!(value > 0.0)) fail(key, fmt::format("must be > 0, got {}", value));
  return value;
}

double JsonObject::non_negative(std::string_view key, double value) const {
  if (!(value >= 0.0)) fail(key, fmt::format("must be >= 0, got {}", value));
  return value;
}

int64_t JsonObject::at_least(std::string_view key, int64_t value, int64_t minimum) const {
  if (value < minimum) fail(key, fmt::format("must be >= {}, got {}", minimum, value));
  return value;
}

void JsonObject::finish(const std::vector<std::string_view>& known_keys) const {
  for (const auto& [key, unused] : value_.items()) {
    if (std::find(read_keys_.begin(), read_keys_.end(), key) != read_keys_.end()) continue;
    std::string known;
    for (std::string_view k : known_keys) {
      if (!known.empty()) known += ", ";
      known += k;
    }
    fail(key, fmt::format("unknown key (known keys: {})", known));
  }
}

}  // namespace tidal::sim
