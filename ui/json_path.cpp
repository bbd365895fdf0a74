#include "ui/json_path.h"

#include <charconv>
#include <span>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::ui {
namespace {

using ojson = nlohmann::ordered_json;

[[noreturn]] void bad_path(std::string_view path, std::string_view what) {
  throw InputError(fmt::format("json path \"{}\": {}", path, what));
}

bool is_key_char(char c) {
  return c != '.' && c != '[' && c != ']';
}

// The node the steps lead to (const or not), nullptr when a step is missing.
template <typename Json>
Json* walk(Json& root, std::span<const PathStep> steps) {
  Json* node = &root;
  for (const PathStep& step : steps) {
    if (step.index >= 0) {
      if (!node->is_array() || static_cast<size_t>(step.index) >= node->size()) return nullptr;
      node = &(*node)[static_cast<size_t>(step.index)];
    } else {
      if (!node->is_object()) return nullptr;
      const auto it = node->find(step.key);
      if (it == node->end()) return nullptr;
      node = &*it;
    }
  }
  return node;
}

void collect_changes(const ojson& before, const ojson& after, const std::string& path,
                     std::vector<JsonChange>& out) {
  if (before.is_object() && after.is_object()) {
    for (const auto& [key, value] : before.items()) {
      const std::string child = path.empty() ? key : path + "." + key;
      if (after.contains(key)) {
        collect_changes(value, after.at(key), child, out);
      } else {
        out.push_back({child, value.dump(), "(absent)"});
      }
    }
    for (const auto& [key, value] : after.items()) {
      if (!before.contains(key)) {
        out.push_back({path.empty() ? key : path + "." + key, "(absent)", value.dump()});
      }
    }
    return;
  }
  if (before.is_array() && after.is_array() && before.size() == after.size()) {
    for (size_t i = 0; i < before.size(); ++i) {
      collect_changes(before[i], after[i], fmt::format("{}[{}]", path, i), out);
    }
    return;
  }
  if (before != after) out.push_back({path, before.dump(), after.dump()});
}

}  // namespace

std::vector<PathStep> parse_json_path(std::string_view path) {
  if (path.empty()) bad_path(path, "empty");
  std::vector<PathStep> steps;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string_view::npos) bad_path(path, "'[' without ']'");
      const std::string_view digits = path.substr(i + 1, close - i - 1);
      int64_t index = -1;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
      if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
          index < 0) {
        bad_path(path, fmt::format("\"[{}]\" is not an array index", digits));
      }
      steps.push_back({"", index});
      i = close + 1;
    } else {
      if (path[i] == '.') {
        if (steps.empty()) bad_path(path, "starts with '.'");
        ++i;
      }
      size_t end = i;
      while (end < path.size() && is_key_char(path[end])) ++end;
      if (end == i) bad_path(path, "empty key");
      steps.push_back({std::string(path.substr(i, end - i)), -1});
      i = end;
    }
  }
  return steps;
}

std::string format_json_path(const std::vector<PathStep>& steps) {
  std::string out;
  for (const PathStep& step : steps) {
    if (step.index >= 0) {
      out += fmt::format("[{}]", step.index);
    } else {
      if (!out.empty()) out += '.';
      out += step.key;
    }
  }
  return out;
}

const ojson* find_at(const ojson& root, std::string_view path) {
  return walk(root, parse_json_path(path));
}

void set_at(ojson& root, std::string_view path, ojson value) {
  const std::vector<PathStep> steps = parse_json_path(path);
  ojson* node = &root;
  for (size_t s = 0; s < steps.size(); ++s) {
    const PathStep& step = steps[s];
    const std::string where = format_json_path({steps.begin(), steps.begin() + s});
    if (step.index >= 0) {
      if (!node->is_array()) bad_path(path, fmt::format("{} is not an array", where));
      const auto index = static_cast<size_t>(step.index);
      if (index > node->size()) {
        bad_path(path, fmt::format("index {} is past the end of {} ({} elements)", index, where,
                                   node->size()));
      }
      if (index == node->size()) node->push_back(ojson::object());
      node = &(*node)[index];
    } else {
      if (node->is_null()) *node = ojson::object();
      if (!node->is_object()) {
        bad_path(path, fmt::format("{} is not an object", where.empty() ? "the root" : where));
      }
      node = &(*node)[step.key];
    }
  }
  *node = std::move(value);
}

void erase_at(ojson& root, std::string_view path) {
  const std::vector<PathStep> steps = parse_json_path(path);
  const PathStep& last = steps.back();
  ojson* parent = walk(root, std::span<const PathStep>(steps).first(steps.size() - 1));
  if (parent == nullptr) return;
  if (last.index >= 0) {
    if (parent->is_array() && static_cast<size_t>(last.index) < parent->size()) {
      parent->erase(static_cast<size_t>(last.index));
    }
  } else if (parent->is_object()) {
    parent->erase(last.key);
  }
}

ojson parse_loose_value(std::string_view text) {
  ojson value = ojson::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return ojson(std::string(text));
  return value;
}

std::vector<JsonChange> json_changes(const ojson& before, const ojson& after) {
  std::vector<JsonChange> out;
  collect_changes(before, after, "", out);
  return out;
}

}  // namespace tidal::ui
