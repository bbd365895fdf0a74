// Workloads made of other workloads: `file` (a trace file with the common knobs) and `mix`
// (several workloads merged by arrival time).
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "base/input_error.h"
#include "traces/generator_kinds.h"
#include "traces/generators.h"
#include "traces/limits.h"
#include "traces/reader.h"

namespace tidal::traces {
namespace {

// Keys a mix passes down to each of its workloads when the workload does not set them.
constexpr std::string_view kInheritedKeys[] = {"tenant", "slo_class", "region", "duration_s"};
// Knobs a mix multiplies into each workload's own.
constexpr std::string_view kScaleKeys[] = {"time_scale", "rate_scale", "length_scale"};

void cut_to_horizon(std::vector<Request>& requests, std::optional<double> duration_s,
                    std::optional<int64_t> num_requests) {
  if (duration_s) {
    const auto end = std::find_if(requests.begin(), requests.end(), [&](const Request& request) {
      return request.arrival_s >= *duration_s;
    });
    requests.erase(end, requests.end());
  }
  if (num_requests && static_cast<int64_t>(requests.size()) > *num_requests) {
    requests.resize(static_cast<size_t>(*num_requests));
  }
}

}  // namespace

std::vector<Request> load_file_workload(SpecObject& spec, const std::string& base_dir) {
  const std::optional<std::string> path = spec.optional_string("path");
  if (!path) spec.fail("path", "missing (required)");
  ReadOptions options;
  if (const std::optional<std::string> format = spec.optional_string("format")) {
    try {
      options.format = parse_format_name(*format);
    } catch (const InputError& error) {
      spec.fail("format", error.what());
    }
  }
  options.skip_bad = spec.boolean("skip_bad", false);
  const double time_scale = spec.number("time_scale", 1.0, 0.0, 1e6, true);
  const double rate_scale = spec.number("rate_scale", 1.0, 0.0, 1e6, true);
  const double length_scale = spec.number("length_scale", 1.0, 0.0, 1e3, true);
  const std::optional<double> duration_s =
      spec.optional_number("duration_s", 0.0, base::kMaxArrivalS, true);
  const std::optional<int64_t> num_requests =
      spec.optional_integer("num_requests", 1, kMaxGeneratedRequests);
  const std::optional<std::string> tenant = spec.optional_string("tenant");
  const std::optional<std::string> slo_class = spec.optional_string("slo_class");
  const std::optional<std::string> region = spec.optional_string("region");
  spec.reject_unknown_keys();

  std::vector<Request> requests;  // [num_rows]
  try {
    requests = read_trace(resolve_spec_path(*path, base_dir), options);
  } catch (const InputError& error) {
    spec.fail("path", error.what());
  }
  for (Request& request : requests) {
    request.arrival_s = request.arrival_s * time_scale / rate_scale;
    request.think_time_s = request.think_time_s * time_scale / rate_scale;
    if (length_scale != 1.0) {
      auto scale = [&](int64_t tokens) {
        const double scaled = std::round(static_cast<double>(tokens) * length_scale);
        return std::clamp<int64_t>(static_cast<int64_t>(std::min(scaled, 1e15)), tokens > 0 ? 1 : 0,
                                   base::kMaxTokens);
      };
      request.prompt_tokens = scale(request.prompt_tokens);
      request.output_tokens = scale(request.output_tokens);
      // Block hashes describe the unscaled prompt; they no longer apply.
      request.prefix_blocks.clear();
      request.prefix_block_tokens = 0;
    }
    if (tenant) request.tenant = *tenant;
    if (slo_class) request.slo_class = *slo_class;
    if (region) request.region = *region;
  }
  order_and_renumber(requests, spec.path());
  cut_to_horizon(requests, duration_s, num_requests);
  if (!requests.empty() && requests.back().arrival_s > base::kMaxArrivalS) {
    spec.fail("time_scale", fmt::format("arrivals reach {:.3g} s, beyond tidal's limit of {:.0g} s",
                                        requests.back().arrival_s, base::kMaxArrivalS));
  }
  return requests;
}

std::vector<Request> generate_mix(SpecObject& spec, uint64_t seed, const std::string& base_dir) {
  const nlohmann::json* workloads = spec.find("workloads");
  if (workloads == nullptr) spec.fail("workloads", "missing (required)");
  if (!workloads->is_array() || workloads->empty()) {
    spec.fail("workloads", "must be a non-empty array of workload specs");
  }
  std::map<std::string_view, const nlohmann::json*> inherited;
  for (const std::string_view key : kInheritedKeys) {
    if (const nlohmann::json* value = spec.find(key)) inherited[key] = value;
  }
  std::map<std::string_view, double> scales;
  for (const std::string_view key : kScaleKeys) {
    scales[key] = spec.number(key, 1.0, 0.0, 1e6, true);
  }
  const std::optional<double> duration_s =
      spec.optional_number("duration_s", 0.0, base::kMaxArrivalS, true);
  const std::optional<int64_t> num_requests =
      spec.optional_integer("num_requests", 1, kMaxGeneratedRequests);
  spec.reject_unknown_keys();

  std::vector<Request> merged;  // [sum of the workloads' requests]
  for (size_t index = 0; index < workloads->size(); ++index) {
    nlohmann::json workload = (*workloads)[index];
    const std::string path = fmt::format("{}.workloads[{}]", spec.path(), index);
    if (!workload.is_object()) {
      throw InputError(path + ": must be a JSON object, got " + describe_json(workload));
    }
    const bool has_horizon = workload.contains("duration_s") || workload.contains("num_requests");
    for (const auto& [key, value] : inherited) {
      if (key == "duration_s" && has_horizon) continue;
      if (!workload.contains(key)) workload[std::string(key)] = *value;
    }
    for (const auto& [key, factor] : scales) {
      if (factor == 1.0) continue;
      const auto it = workload.find(key);
      const double own = it != workload.end() && it->is_number() ? it->get<double>() : 1.0;
      if (it == workload.end() || it->is_number()) workload[std::string(key)] = own * factor;
    }
    std::vector<Request> part =
        generate(workload, stream_seed(seed, Stream::workloads, index), path, base_dir);
    const int64_t id_offset = static_cast<int64_t>(merged.size());
    for (Request& request : part) {
      request.id += id_offset;
      for (int64_t& dep : request.deps) dep += id_offset;
      if (!request.session_id.empty()) {
        request.session_id = fmt::format("w{}/{}", index, request.session_id);
      }
      merged.push_back(std::move(request));
    }
  }
  order_and_renumber(merged, spec.path());
  cut_to_horizon(merged, duration_s, num_requests);
  return merged;
}

}  // namespace tidal::traces
