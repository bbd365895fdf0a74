#include "plan/search_space.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "base/input_error.h"
#include "sim/fleet/kv_links.h"

namespace tidal::plan {
namespace {

constexpr int64_t kMaxCandidates = 1'000'000;

constexpr RoleAxis kRoleAxes[] = {{"prefill_replicas", "prefill", "num_replicas"},
                                  {"prefill_tp", "prefill", "tp"},
                                  {"decode_replicas", "decode", "num_replicas"},
                                  {"decode_tp", "decode", "tp"}};

[[noreturn]] void fail(const std::string& file, const std::string& path, const std::string& what) {
  throw InputError(fmt::format("{}: {}: {}", file, path, what));
}

// The resolved pool value at a dotted path, or nullptr.
const nlohmann::ordered_json* find_path(const nlohmann::ordered_json& pool,
                                        const std::string& key) {
  const nlohmann::ordered_json* node = &pool;
  size_t begin = 0;
  while (true) {
    const size_t dot = key.find('.', begin);
    const std::string part =
        key.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &node->at(part);
    if (dot == std::string::npos) return node;
    begin = dot + 1;
  }
}

// The loader's message when it does not know `key` (or a key on its path) of the pool, else
// empty. Other refusals (a value out of range, a model that does not fit) are the candidates'.
std::string unknown_key_error(const BaseScenario& base, size_t pool_index, const std::string& key,
                              const nlohmann::json& value) {
  nlohmann::json probe = base.json;
  set_pool_key(probe, pool_index, key, value);
  try {
    sim::parse_scenario(probe, base.file, base.dir);
  } catch (const InputError& e) {
    const std::string message = e.what();
    const std::string pool = fmt::format("fleet.pools[{}].", pool_index);
    for (size_t end = key.find('.');; end = key.find('.', end + 1)) {
      if (message.find(pool + key.substr(0, end) + ": unknown key") != std::string::npos) {
        return message;
      }
      if (end == std::string::npos) break;
    }
  }
  return "";
}

// Indices of the pools of `role`, scenario order.
std::vector<size_t> pools_of_role(const sim::Scenario& scenario, std::string_view role) {
  std::vector<size_t> pools;
  for (size_t i = 0; i < scenario.pools.size(); ++i) {
    if (fleet::pool_role_name(scenario.pools[i].role) == role) pools.push_back(i);
  }
  return pools;
}

// A role axis: the one pool of its role, and every value an integer >= 1 (the loader's own
// limits, such as TP dividing the heads, make candidates invalid instead).
Dimension role_dimension(const RoleAxis& axis, const nlohmann::ordered_json& values,
                         const sim::Scenario& base, const std::string& file) {
  const std::string path = fmt::format("dimensions.{}", axis.key);
  const std::vector<size_t> pools = pools_of_role(base, axis.role);
  if (pools.size() != 1) {
    fail(file, path,
         fmt::format("needs exactly one pool of role \"{}\" in {}, found {}", axis.role, base.file,
                     pools.size()));
  }
  if (!values.is_array() || values.empty())
    fail(file, path, "expected a non-empty array of values");
  Dimension d{std::string(axis.key), {}, pools[0], std::string(axis.pool_key)};
  for (size_t i = 0; i < values.size(); ++i) {
    const auto& v = values[i];
    if (!v.is_number_integer() || v.get<int64_t>() < 1) {
      fail(file, fmt::format("{}[{}]", path, i),
           fmt::format("expected an integer >= 1, got {}", v.dump()));
    }
    d.values.push_back(v);
  }
  return d;
}

// A dotted pool key of the varied pool: one the loader knows, not an object, not the name.
Dimension pool_dimension(const std::string& key, const nlohmann::ordered_json& values,
                         const BaseScenario& scenario, const SearchSpace& space,
                         const nlohmann::ordered_json& resolved_pool) {
  const std::string& file = space.file;
  const std::string path = "dimensions." + key;
  if (key.empty() || key.front() == '.' || key.back() == '.' ||
      key.find("..") != std::string::npos) {
    fail(file, path, "expected a dotted pool key such as tp or scheduler.max_num_seqs");
  }
  if (key == "name") fail(file, path, "the pool name cannot be searched");
  const nlohmann::ordered_json* resolved = find_path(resolved_pool, key);
  if (resolved != nullptr && resolved->is_object()) {
    fail(file, path, fmt::format("names an object; search one of its keys (e.g. {}.<key>)", key));
  }
  if (!values.is_array() || values.empty())
    fail(file, path, "expected a non-empty array of values");
  const std::string unknown =
      unknown_key_error(scenario, space.pool_index, key, nlohmann::json(values[0]));
  if (!unknown.empty()) {
    fail(file, path, fmt::format("not a key of pool \"{}\" ({})", space.pool_name, unknown));
  }
  return Dimension{key, {values.begin(), values.end()}, space.pool_index, key};
}

CapacitySettings parse_capacity(const nlohmann::ordered_json& value, const std::string& file) {
  if (!value.is_object()) fail(file, "capacity", "expected an object");
  CapacitySettings c;
  for (const auto& [key, v] : value.items()) {
    double* target = key == "min_rate_scale"   ? &c.min_rate_scale
                     : key == "max_rate_scale" ? &c.max_rate_scale
                     : key == "tolerance"      ? &c.tolerance
                                               : nullptr;
    if (target == nullptr) {
      fail(file, "capacity." + key,
           "unknown key (known: min_rate_scale, max_rate_scale, tolerance)");
    }
    if (!v.is_number() || !(v.get<double>() > 0)) {
      fail(file, "capacity." + key, fmt::format("expected a number > 0, got {}", v.dump()));
    }
    *target = v.get<double>();
  }
  if (!(c.max_rate_scale > c.min_rate_scale)) {
    fail(file, "capacity.max_rate_scale",
         fmt::format("must exceed min_rate_scale ({})", c.min_rate_scale));
  }
  if (c.tolerance >= 1.0) fail(file, "capacity.tolerance", "must be < 1 (a relative width)");
  return c;
}

}  // namespace

const RoleAxis* find_role_axis(std::string_view key) {
  for (const RoleAxis& axis : kRoleAxes) {
    if (axis.key == key) return &axis;
  }
  return nullptr;
}

SearchSpace parse_search_space(const nlohmann::ordered_json& root, const std::string& file,
                               const BaseScenario& scenario) {
  const sim::Scenario base = sim::parse_scenario(scenario.json, scenario.file, scenario.dir);
  if (!root.is_object()) fail(file, "(root)", "expected an object");
  SearchSpace space;
  space.file = file;
  for (const auto& [key, value] : root.items()) {
    if (key != "pool" && key != "dimensions" && key != "capacity") {
      fail(file, key, "unknown key (known: pool, dimensions, capacity)");
    }
  }
  if (root.contains("pool")) {
    const auto& pool = root.at("pool");
    if (!pool.is_string()) fail(file, "pool", "expected a pool name");
    bool found = false;
    for (size_t i = 0; i < base.pools.size(); ++i) {
      if (base.pools[i].name == pool.get<std::string>()) {
        space.pool_index = i;
        found = true;
      }
    }
    if (!found)
      fail(file, "pool", fmt::format("no pool \"{}\" in {}", pool.get<std::string>(), base.file));
  }
  space.pool_name = base.pools[space.pool_index].name;
  if (root.contains("capacity")) space.capacity = parse_capacity(root.at("capacity"), file);
  const std::vector<size_t> prefill_pools = pools_of_role(base, "prefill");
  const std::vector<size_t> decode_pools = pools_of_role(base, "decode");
  if (prefill_pools.size() == 1 && decode_pools.size() == 1) {
    space.prefill_pool = prefill_pools[0];
    space.decode_pool = decode_pools[0];
  }

  const nlohmann::ordered_json resolved_pool =
      sim::scenario_to_json(base).at("fleet").at("pools").at(space.pool_index);
  if (!root.contains("dimensions")) fail(file, "dimensions", "missing (required)");
  const auto& dims = root.at("dimensions");
  if (!dims.is_object()) fail(file, "dimensions", "expected an object of key -> [values]");
  int64_t num_candidates = 1;
  for (const auto& [key, values] : dims.items()) {
    const std::string path = "dimensions." + key;
    const RoleAxis* axis = find_role_axis(key);
    Dimension d = axis != nullptr ? role_dimension(*axis, values, base, file)
                                  : pool_dimension(key, values, scenario, space, resolved_pool);
    for (const Dimension& earlier : space.dimensions) {
      if (earlier.pool_index == d.pool_index && earlier.pool_key == d.pool_key) {
        fail(file, path,
             fmt::format("sets {} of pool \"{}\" as dimensions.{} does", d.pool_key,
                         base.pools[d.pool_index].name, earlier.key));
      }
    }
    for (size_t i = 0; i < d.values.size(); ++i) {
      for (size_t k = 0; k < i; ++k) {
        if (d.values[k] == d.values[i])
          fail(file, fmt::format("{}[{}]", path, i), fmt::format("{} repeats", d.values[i].dump()));
      }
    }
    num_candidates *= static_cast<int64_t>(d.values.size());
    if (num_candidates > kMaxCandidates) {
      fail(file, "dimensions", fmt::format("more than {} candidates", kMaxCandidates));
    }
    space.dimensions.push_back(std::move(d));
  }
  return space;
}
SearchSpace load_search_space(const std::string& path, const BaseScenario& base) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open search space file", path));
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json root;
  try {
    root = nlohmann::ordered_json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    const std::string what = e.what();
    const size_t at = what.find("parse error");
    throw InputError(fmt::format("{}: {}", path, at == std::string::npos ? what : what.substr(at)));
  }
  return parse_search_space(root, path, base);
}

void set_pool_key(nlohmann::json& scenario, size_t pool_index, const std::string& key,
                  const nlohmann::json& value) {
  nlohmann::json* node = &scenario.at("fleet").at("pools").at(pool_index);
  size_t begin = 0;
  for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', begin)) {
    nlohmann::json& child = (*node)[key.substr(begin, dot - begin)];
    if (!child.is_object()) child = nlohmann::json::object();
    node = &child;
    begin = dot + 1;
  }
  (*node)[key.substr(begin)] = value;
}

void apply_candidate(nlohmann::json& scenario, const SearchSpace& space,
                     const nlohmann::ordered_json& config) {
  for (const Dimension& d : space.dimensions) {
    if (config.contains(d.key)) {
      set_pool_key(scenario, d.pool_index, d.pool_key, nlohmann::json(config.at(d.key)));
    }
  }
}

nlohmann::ordered_json pool_overrides(const SearchSpace& space, size_t pool_index,
                                      const nlohmann::ordered_json& config) {
  nlohmann::ordered_json overrides = nlohmann::ordered_json::object();
  for (const Dimension& d : space.dimensions) {
    if (d.pool_index == pool_index && config.contains(d.key)) {
      overrides[d.pool_key] = config.at(d.key);
    }
  }
  return overrides;
}

std::vector<Candidate> enumerate_candidates(const SearchSpace& space) {
  int64_t num_candidates = 1;
  for (const Dimension& d : space.dimensions)
    num_candidates *= static_cast<int64_t>(d.values.size());
  std::vector<Candidate> candidates;
  candidates.reserve(static_cast<size_t>(num_candidates));
  for (int64_t index = 0; index < num_candidates; ++index) {
    Candidate c{index, nlohmann::ordered_json::object()};
    // Mixed radix, last dimension fastest.
    int64_t rest = index;
    std::vector<size_t> digits(space.dimensions.size());
    for (size_t k = space.dimensions.size(); k-- > 0;) {
      const auto n = static_cast<int64_t>(space.dimensions[k].values.size());
      digits[k] = static_cast<size_t>(rest % n);
      rest /= n;
    }
    for (size_t k = 0; k < space.dimensions.size(); ++k) {
      c.config[space.dimensions[k].key] = space.dimensions[k].values[digits[k]];
    }
    candidates.push_back(std::move(c));
  }
  return candidates;
}

}  // namespace tidal::plan
