// generate(): the common spec keys, dispatch to the kind, and the final ordering.
#include <cmath>

#include <fmt/format.h>

#include "base/input_error.h"
#include "traces/generator_kinds.h"
#include "traces/generators.h"
#include "traces/limits.h"

namespace tidal::traces {
namespace {

std::string kinds_list() {
  std::string list;
  for (const std::string_view kind : generator_kinds()) {
    if (!list.empty()) list += ", ";
    list += kind;
  }
  return list;
}

CommonSettings read_common_settings(SpecObject& spec, const std::string& kind, uint64_t seed,
                                    const std::string& base_dir) {
  CommonSettings settings;
  settings.seed = seed;
  settings.base_dir = base_dir;
  settings.time_scale = spec.number("time_scale", 1.0, 0.0, 1e6, true);
  settings.rate_scale = spec.number("rate_scale", 1.0, 0.0, 1e6, true);
  settings.length_scale = spec.number("length_scale", 1.0, 0.0, 1e3, true);
  settings.duration_s = spec.optional_number("duration_s", 0.0, base::kMaxArrivalS, true);
  settings.num_requests = spec.optional_integer("num_requests", 1, kMaxGeneratedRequests);
  settings.tenant = spec.string("tenant", "default");
  settings.slo_class = spec.string("slo_class", kind == "batch" ? "batch" : "interactive");
  settings.region = spec.string("region", "");
  return settings;
}

}  // namespace

void finish_parsing(SpecObject& spec, const CommonSettings& settings, bool is_batch) {
  spec.reject_unknown_keys();
  if (is_batch) {
    if (settings.duration_s) spec.fail("duration_s", "batch takes num_requests, not duration_s");
    if (!settings.num_requests) spec.fail("num_requests", "missing (required for batch)");
  } else if (settings.duration_s && settings.num_requests) {
    spec.fail("num_requests", "give duration_s or num_requests, not both");
  } else if (!settings.duration_s && !settings.num_requests) {
    spec.fail("duration_s", "missing (give duration_s or num_requests)");
  }
}

double CommonSettings::process_horizon_s() const {
  return duration_s ? *duration_s / time_scale : SpecObject::kInfinity;
}

uint64_t stream_seed(uint64_t seed, Stream stream, uint64_t index) {
  return derive_seed(derive_seed(seed, static_cast<uint64_t>(stream)), index);
}

LengthDistributions parse_lengths(SpecObject& spec, const CommonSettings& settings,
                                  const nlohmann::json& default_prompt,
                                  const nlohmann::json& default_output) {
  auto parse = [&](std::string_view key, const nlohmann::json& fallback) {
    DistributionContext context;
    context.quantity = Quantity::tokens;
    context.empirical_field = std::string(key);
    context.base_dir = settings.base_dir;
    context.scale = settings.length_scale;
    const nlohmann::json* json = spec.find(key);
    return Distribution::parse(json != nullptr ? *json : fallback, spec.key_path(key), context);
  };
  return LengthDistributions{parse("prompt", default_prompt), parse("output", default_output)};
}

Distribution parse_count(SpecObject& spec, std::string_view key, const nlohmann::json& fallback) {
  DistributionContext context;
  context.quantity = Quantity::count;
  const nlohmann::json* json = spec.find(key);
  return Distribution::parse(json != nullptr ? *json : fallback, spec.key_path(key), context);
}

void check_request_budget(const SpecObject& spec, double expected_requests) {
  if (!(expected_requests <= static_cast<double>(kMaxGeneratedRequests))) {
    throw InputError(
        fmt::format("{}: would generate about {:.3g} requests; at most {} per workload",
                    spec.path(), expected_requests, kMaxGeneratedRequests));
  }
}

const std::vector<std::string_view>& generator_kinds() {
  static const std::vector<std::string_view> kKinds = {
      "poisson",     "gamma",    "bursty", "diurnal", "batch",
      "closed_loop", "sessions", "agent",  "mix",     "file"};
  return kKinds;
}

std::vector<Request> generate(const nlohmann::json& spec_json, uint64_t seed,
                              const std::string& json_path, const std::string& base_dir) {
  SpecObject spec(spec_json, json_path);
  const std::optional<std::string> kind = spec.optional_string("kind");
  if (!kind) spec.fail("kind", "missing (one of " + kinds_list() + ")");
  if (*kind == "mix") return generate_mix(spec, seed, base_dir);
  if (*kind == "file") return load_file_workload(spec, base_dir);
  const CommonSettings settings = read_common_settings(spec, *kind, seed, base_dir);
  std::vector<Request> requests;  // [num_requests]
  if (*kind == "poisson" || *kind == "gamma" || *kind == "bursty" || *kind == "diurnal") {
    requests = generate_open_loop(spec, *kind, settings);
  } else if (*kind == "batch") {
    requests = generate_batch(spec, settings);
  } else if (*kind == "sessions") {
    requests = generate_sessions(spec, settings);
  } else if (*kind == "agent") {
    requests = generate_agent(spec, settings);
  } else if (*kind == "closed_loop") {
    requests = generate_closed_loop(spec, settings);
  } else {
    spec.fail("kind", "unknown generator \"" + *kind + "\" (one of " + kinds_list() + ")");
  }
  for (Request& request : requests) {
    request.arrival_s *= settings.time_scale;
    request.think_time_s *= settings.time_scale;
    request.tenant = settings.tenant;
    request.slo_class = settings.slo_class;
    request.region = settings.region;
  }
  order_and_renumber(requests, spec.path());
  if (settings.num_requests && static_cast<int64_t>(requests.size()) > *settings.num_requests) {
    requests.resize(static_cast<size_t>(*settings.num_requests));
  }
  if (!requests.empty() && requests.back().arrival_s > base::kMaxArrivalS) {
    throw InputError(
        fmt::format("{}: arrivals reach {:.3g} s, beyond tidal's limit of {:.0g} s; "
                    "raise the rate or use duration_s",
                    spec.path(), requests.back().arrival_s, base::kMaxArrivalS));
  }
  return requests;
}

void order_and_renumber(std::vector<Request>& requests, const std::string& path) {
  // Most generators emit arrivals in order already; sorting those would only copy them.
  const auto earlier = [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; };
  if (!std::is_sorted(requests.begin(), requests.end(), earlier)) {
    std::stable_sort(requests.begin(), requests.end(), earlier);
  }
  bool has_deps = false;
  for (const Request& request : requests) has_deps = has_deps || !request.deps.empty();
  if (has_deps) {
    std::unordered_map<int64_t, int64_t> new_id;  // old id -> new id; lookups only
    new_id.reserve(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
      if (!new_id.emplace(requests[i].id, static_cast<int64_t>(i)).second) {
        throw InputError(fmt::format("{}: id {} appears twice, so deps on it are ambiguous", path,
                                     requests[i].id));
      }
    }
    for (Request& request : requests) {
      for (int64_t& dep : request.deps) {
        const auto it = new_id.find(dep);
        if (it == new_id.end()) {
          throw InputError(
              fmt::format("{}: request {} depends on id {}, which is not in the "
                          "workload (cut off by duration_s or num_requests?)",
                          path, request.id, dep));
        }
        dep = it->second;
      }
    }
  }
  for (size_t i = 0; i < requests.size(); ++i) requests[i].id = static_cast<int64_t>(i);
}

}  // namespace tidal::traces
