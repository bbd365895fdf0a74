#include "sim/scenario_disagg.h"

#include <string>

#include <fmt/format.h>

namespace tidal::sim {
namespace {

// Beyond these a link is no network anyone builds, and transfer times would leave the clock.
constexpr double kMaxGbPerS = 1e5;
constexpr double kMinGbPerS = 1e-3;
constexpr double kMaxLatencyMs = 1e6;
constexpr double kMaxEgressPerGb = 1e6;

double bandwidth_at(JsonObject& obj, std::string_view key, double value) {
  if (!(value >= kMinGbPerS && value <= kMaxGbPerS)) {
    obj.fail(key, fmt::format("must be between {:g} and {:g} GB/s, got {:g}", kMinGbPerS,
                              kMaxGbPerS, value));
  }
  return value;
}

// The index of the pool named by `key`, which must have `role`.
int32_t pool_at(JsonObject& obj, std::string_view key, const std::vector<PoolSpec>& pools,
                fleet::PoolRole role) {
  const std::string name = obj.required_string(key);
  for (size_t p = 0; p < pools.size(); ++p) {
    if (pools[p].name != name) continue;
    if (pools[p].role != role) {
      obj.fail(key, fmt::format("pool \"{}\" has role {}; a link goes from a prefill pool to a "
                                "decode pool",
                                name, fleet::pool_role_name(pools[p].role)));
    }
    return static_cast<int32_t>(p);
  }
  obj.fail(key, fmt::format("no pool is named \"{}\"", name));
}

fleet::KvLinkSpec read_link(const nlohmann::json& value, const std::string& path,
                            const std::string& file, const std::vector<PoolSpec>& pools) {
  JsonObject obj(value, path, file);
  fleet::KvLinkSpec link;
  link.from_pool = pool_at(obj, "from", pools, fleet::PoolRole::prefill);
  link.to_pool = pool_at(obj, "to", pools, fleet::PoolRole::decode);
  link.from = pools[static_cast<size_t>(link.from_pool)].name;
  link.to = pools[static_cast<size_t>(link.to_pool)].name;
  const PoolSpec& from = pools[static_cast<size_t>(link.from_pool)];
  const PoolSpec& to = pools[static_cast<size_t>(link.to_pool)];
  if (from.model != to.model) {
    obj.fail("to", fmt::format("pool \"{}\" serves {} but \"{}\" serves {}: KV moves between "
                               "pools of one model",
                               to.name, to.model, from.name, from.model));
  }
  if (from.deployment.block_size != to.deployment.block_size) {
    obj.fail("to",
             fmt::format("block_size {} of \"{}\" differs from {} of \"{}\"",
                         to.deployment.block_size, to.name, from.deployment.block_size, from.name));
  }
  const std::string kind = obj.string("kind", "infiniband");
  const std::optional<fleet::LinkKind> found = fleet::find_link_kind(kind);
  if (!found) {
    obj.fail("kind", fmt::format("unknown link kind \"{}\"; expected nvlink, infiniband, roce or "
                                 "ethernet",
                                 kind));
  }
  link.kind = *found;
  const fleet::LinkKindDefaults defaults = fleet::link_kind_defaults(link.kind);
  link.gb_per_s_per_gpu = bandwidth_at(obj, "gb_per_s_per_gpu",
                                       obj.number("gb_per_s_per_gpu", defaults.gb_per_s_per_gpu));
  link.latency_ms = obj.non_negative("latency_ms", obj.number("latency_ms", defaults.latency_ms));
  if (link.latency_ms > kMaxLatencyMs) {
    obj.fail("latency_ms",
             fmt::format("must be at most {:g} ms, got {:g}", kMaxLatencyMs, link.latency_ms));
  }
  if (const std::optional<double> cap = obj.optional_number("gb_per_s")) {
    link.gb_per_s = bandwidth_at(obj, "gb_per_s", *cap);
  }
  link.egress_per_gb = obj.non_negative("egress_per_gb", obj.number("egress_per_gb", 0.0));
  if (link.egress_per_gb > kMaxEgressPerGb) {
    obj.fail("egress_per_gb", fmt::format("must be at most {:g} dollars per GB, got {:g}",
                                          kMaxEgressPerGb, link.egress_per_gb));
  }
  obj.finish({"from", "to", "kind", "gb_per_s_per_gpu", "latency_ms", "gb_per_s", "egress_per_gb"});
  return link;
}

}  // namespace

void parse_kv_transfer(JsonObject& root, Scenario& scenario) {
  const std::vector<PoolSpec>& pools = scenario.pools;
  const std::string& file = root.file();
  bool disaggregated = false;
  for (const PoolSpec& pool : pools) disaggregated |= pool.role != fleet::PoolRole::both;
  const nlohmann::json* value = root.child("kv_transfer");
  std::vector<fleet::KvLinkSpec> links;
  if (value != nullptr && !value->is_null()) {
    JsonObject obj(*value, "kv_transfer", file);
    if (!disaggregated) {
      throw_at(file, "kv_transfer", "needs pools with role prefill and decode");
    }
    const nlohmann::json* list = obj.child("links");
    if (list == nullptr) obj.fail("links", "missing (required)");
    if (!list->is_array() || list->empty()) {
      obj.fail("links", "must be a non-empty array of {from, to, kind, ...}");
    }
    const std::string from = obj.string("first_token_from", "decode");
    if (from == "prefill") {
      scenario.first_token_from = fleet::FirstTokenFrom::prefill;
    } else if (from != "decode") {
      obj.fail("first_token_from", "must be \"decode\" or \"prefill\", not \"" + from + "\"");
    }
    obj.finish({"links", "first_token_from"});
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string path = fmt::format("kv_transfer.links[{}]", i);
      links.push_back(read_link((*list)[i], path, file, pools));
      for (size_t j = 0; j < i; ++j) {
        if (links[j].from_pool == links[i].from_pool && links[j].to_pool == links[i].to_pool) {
          throw_at(file, path,
                   fmt::format("duplicates kv_transfer.links[{}] (\"{}\" -> \"{}\")", j,
                               links[i].from, links[i].to));
        }
      }
    }
  }
  for (size_t p = 0; p < pools.size(); ++p) {
    const PoolSpec& pool = pools[p];
    if (pool.role == fleet::PoolRole::both) continue;
    bool linked = false;
    for (const fleet::KvLinkSpec& link : links) {
      linked |= static_cast<size_t>(pool.role == fleet::PoolRole::prefill ? link.from_pool
                                                                          : link.to_pool) == p;
    }
    if (!linked) {
      throw_at(file, fmt::format("fleet.pools[{}].role", p),
               pool.role == fleet::PoolRole::prefill
                   ? fmt::format("prefill pool \"{}\" has no kv_transfer link to a decode pool",
                                 pool.name)
                   : fmt::format("decode pool \"{}\" has no kv_transfer link from a prefill pool",
                                 pool.name));
    }
  }
  scenario.kv_links = std::move(links);
}

nlohmann::ordered_json kv_transfer_to_json(const Scenario& scenario, bool with_egress) {
  const std::vector<fleet::KvLinkSpec>& links = scenario.kv_links;
  if (links.empty()) return nullptr;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const fleet::KvLinkSpec& link : links) {
    nlohmann::ordered_json j{{"from", link.from},
                             {"to", link.to},
                             {"kind", std::string(fleet::link_kind_name(link.kind))},
                             {"gb_per_s_per_gpu", link.gb_per_s_per_gpu},
                             {"latency_ms", link.latency_ms}};
    j["gb_per_s"] = link.gb_per_s ? nlohmann::ordered_json(*link.gb_per_s) : nullptr;
    if (with_egress) j["egress_per_gb"] = link.egress_per_gb;
    list.push_back(j);
  }
  return nlohmann::ordered_json{
      {"links", list},
      {"first_token_from",
       scenario.first_token_from == fleet::FirstTokenFrom::prefill ? "prefill" : "decode"}};
}

}  // namespace tidal::sim
