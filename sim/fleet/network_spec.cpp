// Parsing and validation of NetworkSpec.
#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "sim/fleet/network.h"
#include "sim/fleet/spec_reading.h"

namespace tidal::fleet {

std::string_view region_kind_name(RegionKind kind) {
  switch (kind) {
    case RegionKind::client:
      return "client";
    case RegionKind::edge:
      return "edge";
    case RegionKind::gpu:
      return "gpu";
  }
  return "gpu";
}

namespace {

RegionKind parse_region_kind(const std::string& text, const std::string& where,
                             const std::string& path) {
  for (RegionKind kind : {RegionKind::client, RegionKind::edge, RegionKind::gpu}) {
    if (region_kind_name(kind) == text) return kind;
  }
  perf::throw_json_error(where, path,
                         "unknown region kind \"" + text + "\"; expected client, edge or gpu");
}

const nlohmann::json& array_at(perf::JsonObjectReader& reader, std::string_view key) {
  const nlohmann::json& value = reader.at(key);
  if (!value.is_array()) {
    perf::throw_json_error(reader.where(), reader.child_path(key), "must be an array of objects");
  }
  return value;
}

// Bytes per token or per chunk: at most a megabyte (a token is a few bytes of text).
double read_wire_bytes(perf::JsonObjectReader& reader, std::string_view key, double default_value) {
  const double bytes = read_number(reader, key, default_value, Bound::non_negative);
  constexpr double kMaxBytes = 1e6;
  if (bytes > kMaxBytes) {
    perf::throw_json_error(reader.where(), reader.child_path(key),
                           fmt::format("must be at most {:g} bytes (got {:g})", kMaxBytes, bytes));
  }
  return bytes;
}

}  // namespace

bool NetworkSpec::prices_egress() const {
  return std::any_of(links.begin(), links.end(),
                     [](const LinkSpec& link) { return link.egress_per_gb > 0.0; });
}

NetworkSpec parse_network_spec(const nlohmann::json& json, const std::string& where,
                               const std::string& path) {
  perf::JsonObjectReader reader(json, where, path);
  NetworkSpec spec;
  std::map<std::string, size_t, std::less<>> region_index;  // name -> index in spec.regions

  const nlohmann::json& regions = array_at(reader, "regions");
  const std::string regions_path = reader.child_path("regions");
  for (size_t i = 0; i < regions.size(); ++i) {
    perf::JsonObjectReader region(regions[i], where, fmt::format("{}[{}]", regions_path, i));
    RegionSpec parsed;
    parsed.name = region.string("name");
    if (parsed.name.empty()) {
      perf::throw_json_error(where, region.child_path("name"), "must not be empty");
    }
    if (auto it = region_index.find(parsed.name); it != region_index.end()) {
      perf::throw_json_error(
          where, region.child_path("name"),
          fmt::format("duplicate region \"{}\" (also regions[{}])", parsed.name, it->second));
    }
    parsed.kind = parse_region_kind(region.string("kind"), where, region.child_path("kind"));
    parsed.energy = read_site_energy_keys(region);
    if (parsed.kind == RegionKind::client && parsed.energy.any()) {
      perf::throw_json_error(where, region.path(),
                             "a client region hosts no replicas and draws no power: give pue, "
                             "carbon_intensity_g_per_kwh and electricity_price_per_kwh on edge "
                             "or gpu regions");
    }
    region.finish();
    region_index.emplace(parsed.name, i);
    spec.regions.push_back(std::move(parsed));
  }
  const bool has_client =
      std::any_of(spec.regions.begin(), spec.regions.end(),
                  [](const RegionSpec& r) { return r.kind == RegionKind::client; });
  const bool has_site =
      std::any_of(spec.regions.begin(), spec.regions.end(),
                  [](const RegionSpec& r) { return r.kind != RegionKind::client; });
  if (!has_client || !has_site) {
    perf::throw_json_error(where, regions_path,
                           "needs at least one client region and one edge or gpu region");
  }

  auto region_names = [&] {
    std::string names;
    for (const RegionSpec& region : spec.regions) {
      names += (names.empty() ? "" : ", ") + region.name;
    }
    return names;
  };
  std::map<std::pair<size_t, size_t>, size_t> link_index;  // sorted endpoints -> link index
  const nlohmann::json& links = array_at(reader, "links");
  const std::string links_path = reader.child_path("links");
  for (size_t i = 0; i < links.size(); ++i) {
    const std::string link_path = fmt::format("{}[{}]", links_path, i);
    perf::JsonObjectReader link(links[i], where, link_path);
    LinkSpec parsed;
    size_t endpoints[2] = {0, 0};
    for (int end = 0; end < 2; ++end) {
      const std::string_view key = end == 0 ? "from" : "to";
      std::string name = link.string(key);
      auto it = region_index.find(name);
      if (it == region_index.end()) {
        perf::throw_json_error(
            where, link.child_path(key),
            fmt::format("unknown region \"{}\"; regions: {}", name, region_names()));
      }
      endpoints[end] = it->second;
      (end == 0 ? parsed.from : parsed.to) = std::move(name);
    }
    if (endpoints[0] == endpoints[1]) {
      perf::throw_json_error(where, link_path,
                             fmt::format("links region \"{}\" to itself", parsed.from));
    }
    const auto key = std::minmax(endpoints[0], endpoints[1]);
    if (auto it = link_index.find(key); it != link_index.end()) {
      perf::throw_json_error(
          where, link_path,
          fmt::format("duplicate link between \"{}\" and \"{}\" (also links[{}])", parsed.from,
                      parsed.to, it->second));
    }
    link_index.emplace(key, i);
    if (!link.has("latency_ms")) {
      perf::throw_json_error(where, link.child_path("latency_ms"), "missing");
    }
    parsed.latency_ms = read_number(link, "latency_ms", 0.0, Bound::non_negative);
    // A path sums its links' latencies into the event loop's clock.
    constexpr double kMaxLatencyMs = 1e6;
    if (parsed.latency_ms > kMaxLatencyMs) {
      perf::throw_json_error(
          where, link.child_path("latency_ms"),
          fmt::format("must be at most {:g} ms (got {:g})", kMaxLatencyMs, parsed.latency_ms));
    }
    parsed.egress_per_gb = read_number(link, "egress_per_gb", 0.0, Bound::non_negative);
    constexpr double kMaxEgressPerGb = 1e6;
    if (parsed.egress_per_gb > kMaxEgressPerGb) {
      perf::throw_json_error(where, link.child_path("egress_per_gb"),
                             fmt::format("must be at most {:g} dollars per GB (got {:g})",
                                         kMaxEgressPerGb, parsed.egress_per_gb));
    }
    link.finish();
    spec.links.push_back(std::move(parsed));
  }
  WireBytes& wire = spec.wire;
  wire.request_bytes_per_token =
      read_wire_bytes(reader, "request_bytes_per_token", wire.request_bytes_per_token);
  wire.response_bytes_per_token =
      read_wire_bytes(reader, "response_bytes_per_token", wire.response_bytes_per_token);
  wire.response_bytes_per_chunk =
      read_wire_bytes(reader, "response_bytes_per_chunk", wire.response_bytes_per_chunk);
  reader.finish();
  return spec;
}

}  // namespace tidal::fleet
