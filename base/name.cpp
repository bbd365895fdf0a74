#include "base/name.h"

#include <mutex>
#include <ostream>
#include <unordered_set>

#include <nlohmann/json.hpp>

namespace tidal::base {

namespace {

struct TextHash {
  using is_transparent = void;  // finds a string_view without making a std::string
  size_t operator()(std::string_view text) const { return std::hash<std::string_view>()(text); }
};

// Every text ever named, never freed: the nodes of an unordered_set keep their address, so a
// name's pointer stays valid while other names are added. Names repeat (a tenant's requests, a
// session's turns share one), so the table holds far fewer texts than a run holds requests.
struct Interned {
  std::mutex mutex;
  std::unordered_set<std::string, TextHash, std::equal_to<>> texts;
};

Interned& interned() {
  static Interned* table = new Interned();  // outlives every static Name
  return *table;
}

}  // namespace

const std::string Name::kEmpty;

Name::Name(std::string_view text) {
  if (text.empty()) return;
  Interned& table = interned();
  const std::lock_guard<std::mutex> lock(table.mutex);
  auto found = table.texts.find(text);
  if (found == table.texts.end()) found = table.texts.emplace(text).first;
  text_ = &*found;
}

std::ostream& operator<<(std::ostream& out, Name name) {
  return out << name.str();
}

void to_json(nlohmann::json& j, const Name& name) {
  j = name.str();
}

void from_json(const nlohmann::json& j, Name& name) {
  name = Name(j.get<std::string>());
}

}  // namespace tidal::base
