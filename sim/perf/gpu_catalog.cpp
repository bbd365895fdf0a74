#include "sim/perf/gpu_catalog.h"

#include <vector>

#include "sim/perf/catalog_data.h"
#include "sim/perf/json_reader.h"
#include "traces/input_error.h"

namespace tidal::perf {
namespace {

constexpr char kWhere[] = "sim/perf/catalog/gpus.json (compiled in)";

// Reads {"value": x, "source": "..."}, records the source, returns value * scale.
double read_figure(JsonObjectReader& entry, std::string_view key, double scale, GpuSpec& gpu) {
  JsonObjectReader figure = entry.object(key);
  double value = figure.number("value");
  std::string source = figure.string("source");
  figure.finish();
  if (value < 0) throw_json_error(kWhere, figure.path() + ".value", "must be >= 0");
  if (source.empty()) throw_json_error(kWhere, figure.path() + ".source", "must not be empty");
  gpu.sources.emplace(std::string(key), std::move(source));
  return value * scale;
}

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
    GpuSpec gpu;
    gpu.name = entry.string("name");
    const nlohmann::json& aliases = entry.at("aliases");
    for (const auto& alias : aliases) gpu.aliases.push_back(alias.get<std::string>());
    gpu.source = entry.string("source");
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    gpu.memory_bytes = read_figure(entry, "memory_gib", kGiB, gpu);
    gpu.hbm_bandwidth_Bps = read_figure(entry, "hbm_bandwidth_gb_per_s", 1e9, gpu);
    gpu.flops_bf16 = read_figure(entry, "flops_bf16_tflops", 1e12, gpu);
    gpu.flops_fp8 = read_figure(entry, "flops_fp8_tflops", 1e12, gpu);
    gpu.flops_int8 = read_figure(entry, "flops_int8_tflops", 1e12, gpu);
    gpu.flops_fp4 = read_figure(entry, "flops_fp4_tflops", 1e12, gpu);
    gpu.interconnect_Bps = read_figure(entry, "interconnect_gb_per_s", 1e9, gpu);
    gpu.pcie_Bps = read_figure(entry, "pcie_gb_per_s", 1e9, gpu);
    gpu.price_on_demand_per_h = read_figure(entry, "price_on_demand_per_h", 1.0, gpu);
    gpu.price_spot_per_h = read_figure(entry, "price_spot_per_h", 1.0, gpu);
    entry.finish();
    gpus.push_back(std::move(gpu));
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

}  // namespace tidal::perf
