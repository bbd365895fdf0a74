#include "perf/gpu_spec_json.h"

#include <utility>

namespace tidal::perf {
namespace {

// One numeric GpuSpec field and its JSON key. nvlink_domain_size, an integer, is handled apart.
struct Figure {
  std::string_view key;
  double scale;  // JSON unit -> SI unit
  double GpuSpec::*field;
  bool positive;  // must be > 0 (and is required inline); otherwise >= 0
};

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr Figure kFigures[] = {
    {"memory_gib", kGiB, &GpuSpec::memory_bytes, true},
    {"hbm_bandwidth_gb_per_s", 1e9, &GpuSpec::hbm_bandwidth_Bps, true},
    {"flops_bf16_tflops", 1e12, &GpuSpec::flops_bf16, true},
    {"flops_fp8_tflops", 1e12, &GpuSpec::flops_fp8, false},
    {"flops_int8_tflops", 1e12, &GpuSpec::flops_int8, false},
    {"flops_fp4_tflops", 1e12, &GpuSpec::flops_fp4, false},
    {"interconnect_gb_per_s", 1e9, &GpuSpec::interconnect_Bps, false},
    {"scale_out_gb_per_s", 1e9, &GpuSpec::scale_out_Bps, false},
    {"pcie_gb_per_s", 1e9, &GpuSpec::pcie_Bps, false},
    {"price_on_demand_per_h", 1.0, &GpuSpec::price_on_demand_per_h, false},
    {"price_spot_per_h", 1.0, &GpuSpec::price_spot_per_h, false},
    {"power_idle_w", 1.0, &GpuSpec::power_idle_w, false},
    {"power_max_w", 1.0, &GpuSpec::power_max_w, false},
};
constexpr std::string_view kDomainKey = "nvlink_domain_size";

// Inline defaults (docs/perf.md, "Inline GPUs").
constexpr double kDefaultPcieBps = 32e9;  // PCIe 4.0 x16: 64 GB/s both directions

// Opens the {"value": x, "source": "..."} object at `key` and records its source.
JsonObjectReader sourced_figure(JsonObjectReader& entry, std::string_view key, GpuSpec& gpu) {
  JsonObjectReader figure = entry.object(key);
  std::string source = figure.string("source");
  if (source.empty()) {
    throw_json_error(entry.where(), figure.path() + ".source", "must not be empty");
  }
  gpu.sources.emplace(std::string(key), std::move(source));
  return figure;
}

// Gives an inline GPU's missing figure its default value and notes where that came from.
void default_figure(GpuSpec& gpu, std::string_view key, double GpuSpec::*field, double value,
                    std::string note) {
  if (gpu.sources.contains(std::string(key))) return;
  gpu.*field = value;
  gpu.sources.emplace(std::string(key), "default: " + std::move(note));
}

}  // namespace

void check_gpu_spec(const GpuSpec& gpu, const std::string& where,
                    const std::function<std::string(std::string_view key)>& figure_path) {
  if (gpu.name.empty()) throw_json_error(where, figure_path("name"), "must not be empty");
  for (const Figure& figure : kFigures) {
    const double value = gpu.*figure.field;
    if (figure.positive && !(value > 0)) {
      throw_json_error(where, figure_path(figure.key), "must be > 0");
    }
    if (!(value >= 0)) throw_json_error(where, figure_path(figure.key), "must be >= 0");
  }
  if (gpu.power_idle_w > gpu.power_max_w && gpu.power_max_w > 0) {
    throw_json_error(where, figure_path("power_idle_w"), "must be <= power_max_w");
  }
  if (gpu.power_idle_w > 0 && !(gpu.power_max_w > 0)) {
    throw_json_error(where, figure_path("power_max_w"), "must be > 0 when power_idle_w is given");
  }
  if (gpu.nvlink_domain_size < 1) throw_json_error(where, figure_path(kDomainKey), "must be >= 1");
  if (gpu.nvlink_domain_size > 1 && !(gpu.interconnect_Bps > 0)) {
    throw_json_error(where, figure_path("interconnect_gb_per_s"),
                     "must be > 0 when nvlink_domain_size > 1");
  }
}

GpuSpec read_catalog_gpu(JsonObjectReader& entry) {
  GpuSpec gpu;
  gpu.name = entry.string("name");
  const nlohmann::json& aliases = entry.at("aliases");
  const std::string aliases_path = entry.child_path("aliases");
  if (!aliases.is_array()) throw_json_error(entry.where(), aliases_path, "must be an array");
  for (std::size_t i = 0; i < aliases.size(); ++i) {
    if (!aliases[i].is_string()) {
      throw_json_error(entry.where(), aliases_path + "[" + std::to_string(i) + "]",
                       "must be a string");
    }
    gpu.aliases.push_back(aliases[i].get<std::string>());
  }
  gpu.source = entry.string("source");
  for (const Figure& figure : kFigures) {
    JsonObjectReader sourced = sourced_figure(entry, figure.key, gpu);
    gpu.*figure.field = sourced.number("value") * figure.scale;
    sourced.finish();
  }
  JsonObjectReader domain = sourced_figure(entry, kDomainKey, gpu);
  gpu.nvlink_domain_size = domain.integer("value");
  domain.finish();
  entry.finish();
  check_gpu_spec(gpu, entry.where(), [&](std::string_view key) {
    return key == "name" ? entry.child_path(key) : entry.child_path(key) + ".value";
  });
  return gpu;
}

GpuSpec parse_gpu_object(const nlohmann::json& object, const std::string& where,
                         const std::string& json_path) {
  JsonObjectReader reader(object, where, json_path);
  GpuSpec gpu;
  gpu.name = reader.string("name");
  gpu.source =
      reader.has("source") ? reader.string("source") : "inline GPU at " + where + ": " + json_path;
  for (const Figure& figure : kFigures) {
    if (!figure.positive && !reader.has(figure.key)) continue;
    gpu.*figure.field = reader.number(figure.key) * figure.scale;
    gpu.sources.emplace(std::string(figure.key), "given inline");
  }
  default_figure(gpu, "flops_fp8_tflops", &GpuSpec::flops_fp8, 0, "0, no fp8 tensor path");
  default_figure(gpu, "flops_int8_tflops", &GpuSpec::flops_int8, 0, "0, no int8 tensor path");
  default_figure(gpu, "flops_fp4_tflops", &GpuSpec::flops_fp4, 0, "0, no fp4 tensor path");
  default_figure(gpu, "pcie_gb_per_s", &GpuSpec::pcie_Bps, kDefaultPcieBps,
                 "PCIe 4.0 x16, 32 GB/s one direction");
  default_figure(gpu, "interconnect_gb_per_s", &GpuSpec::interconnect_Bps, gpu.pcie_Bps,
                 "pcie_gb_per_s (no scale-up link: GPUs talk over PCIe)");
  default_figure(gpu, "scale_out_gb_per_s", &GpuSpec::scale_out_Bps, 0, "0, no scale-out network");
  default_figure(gpu, "price_on_demand_per_h", &GpuSpec::price_on_demand_per_h, 0,
                 "0, unknown: set the pool's price");
  default_figure(gpu, "price_spot_per_h", &GpuSpec::price_spot_per_h, gpu.price_on_demand_per_h,
                 "price_on_demand_per_h (no spot discount assumed)");
  default_figure(gpu, "power_idle_w", &GpuSpec::power_idle_w, 0, "0, unknown");
  default_figure(gpu, "power_max_w", &GpuSpec::power_max_w, 0,
                 "0, unknown: give the pool's energy.gpu_max_w for an energy report");
  if (reader.has(kDomainKey)) {
    gpu.nvlink_domain_size = reader.integer(kDomainKey);
    gpu.sources.emplace(std::string(kDomainKey), "given inline");
  } else {
    gpu.sources.emplace(std::string(kDomainKey), "default: 1, no scale-up domain");
  }
  reader.finish();
  check_gpu_spec(gpu, where, [&](std::string_view key) { return reader.child_path(key); });
  return gpu;
}

}  // namespace tidal::perf
