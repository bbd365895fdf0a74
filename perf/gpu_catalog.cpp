#include "perf/gpu_catalog.h"

#include <vector>

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "perf/catalog_data.h"
#include "perf/gpu_spec_json.h"
#include "perf/json_reader.h"

namespace tidal::perf {
namespace {

constexpr char kWhere[] = "perf/catalog/gpus.json (compiled in)";

std::vector<GpuSpec> parse_catalog() {
  nlohmann::json root = nlohmann::json::parse(gpu_catalog_json());
  JsonObjectReader top(root, kWhere, "");
  top.string("units");
  const nlohmann::json& entries = top.at("gpus");
  top.finish();
  if (!entries.is_array()) throw_json_error(kWhere, "gpus", "must be an array");
  std::vector<GpuSpec> gpus;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    JsonObjectReader entry(entries[i], kWhere, "gpus[" + std::to_string(i) + "]");
    gpus.push_back(read_catalog_gpu(entry));
  }
  return gpus;
}

const std::vector<GpuSpec>& catalog() {
  static const std::vector<GpuSpec> gpus = parse_catalog();
  return gpus;
}

}  // namespace

const GpuSpec& find_gpu(std::string_view name, const std::string& json_path) {
  for (const GpuSpec& gpu : catalog()) {
    if (iequals(gpu.name, name)) return gpu;
    for (const std::string& alias : gpu.aliases) {
      if (iequals(alias, name)) return gpu;
    }
  }
  std::string known;
  for (const GpuSpec& gpu : catalog()) known += (known.empty() ? "" : ", ") + gpu.name;
  throw InputError(json_path + ": unknown GPU \"" + std::string(name) + "\"; known GPUs: " + known);
}

std::vector<std::string> gpu_names() {
  std::vector<std::string> names;
  for (const GpuSpec& gpu : catalog()) names.push_back(gpu.name);
  return names;
}

GpuSpec resolve_gpu(const nlohmann::json& value, const std::string& where,
                    const std::string& json_path) {
  if (value.is_string()) return find_gpu(value.get<std::string>(), where + ": " + json_path);
  if (value.is_object()) return parse_gpu_object(value, where, json_path);
  throw_json_error(where, json_path,
                   "must be a catalog GPU name (a string) or an inline GPU (an object)");
}

}  // namespace tidal::perf
