// The GPU catalog (every entry complete and sourced, lookups, entry checks) and inline GPUs
// (parsing, defaults, errors naming the JSON path).
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "perf/gpu_catalog.h"
#include "perf/gpu_spec_json.h"
#include "perf/json_reader.h"

namespace tidal::perf {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
const std::string kWhere = "scenario.json";
const std::string kPath = "fleet.pools[0].gpu";

std::string error_of(const nlohmann::json& gpu) {
  try {
    resolve_gpu(gpu, kWhere, kPath);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

nlohmann::json minimal_inline_gpu() {
  return {{"name", "my-accelerator"},
          {"memory_gib", 64},
          {"hbm_bandwidth_gb_per_s", 2000},
          {"flops_bf16_tflops", 500}};
}

TEST(GpuCatalog, HoldsTheRequiredGpus) {
  const std::vector<std::string> expected = {"A10G",
                                             "L4",
                                             "L40S",
                                             "A40",
                                             "A100-40GB",
                                             "A100-80GB",
                                             "H100-PCIe",
                                             "H100-NVL",
                                             "H100-SXM",
                                             "H200",
                                             "GH200",
                                             "B200",
                                             "B300",
                                             "GB200",
                                             "GB300",
                                             "RTX-4090",
                                             "Jetson-AGX-Orin-64GB",
                                             "MI300X",
                                             "MI325X",
                                             "MI355X"};
  EXPECT_EQ(gpu_names(), expected);
}

TEST(GpuCatalog, EveryFigureIsPresentAndSourced) {
  const std::vector<std::string> figures = {"memory_gib",
                                            "hbm_bandwidth_gb_per_s",
                                            "flops_bf16_tflops",
                                            "flops_fp8_tflops",
                                            "flops_int8_tflops",
                                            "flops_fp4_tflops",
                                            "interconnect_gb_per_s",
                                            "nvlink_domain_size",
                                            "scale_out_gb_per_s",
                                            "pcie_gb_per_s",
                                            "price_on_demand_per_h",
                                            "price_spot_per_h",
                                            "power_idle_w",
                                            "power_max_w"};
  for (const std::string& name : gpu_names()) {
    SCOPED_TRACE(name);
    const GpuSpec& gpu = find_gpu(name, "test");
    EXPECT_FALSE(gpu.source.empty());
    EXPECT_GT(gpu.memory_bytes, 0);
    EXPECT_GT(gpu.hbm_bandwidth_Bps, 0);
    EXPECT_GT(gpu.flops_bf16, 0);
    EXPECT_GT(gpu.flops_int8, 0);
    EXPECT_GT(gpu.interconnect_Bps, 0);
    EXPECT_GE(gpu.nvlink_domain_size, 1);
    EXPECT_GT(gpu.scale_out_Bps, 0);
    EXPECT_GT(gpu.pcie_Bps, 0);
    EXPECT_GT(gpu.price_on_demand_per_h, 0);
    EXPECT_GT(gpu.price_spot_per_h, 0);
    EXPECT_LT(gpu.price_spot_per_h, gpu.price_on_demand_per_h);
    EXPECT_EQ(gpu.sources.size(), figures.size());
    for (const std::string& figure : figures) {
      ASSERT_TRUE(gpu.sources.contains(figure)) << figure;
      EXPECT_FALSE(gpu.sources.at(figure).empty()) << figure;
    }
    EXPECT_NE(gpu.sources.at("price_spot_per_h").find("example value"), std::string::npos);
  }
}

TEST(GpuCatalog, PricesFactsLacksAreLabelledExamples) {
  for (const char* name :
       {"H100-PCIe", "H100-NVL", "GH200", "B300", "GB200", "GB300", "MI300X", "MI325X", "MI355X"}) {
    SCOPED_TRACE(name);
    EXPECT_NE(find_gpu(name, "t").sources.at("price_on_demand_per_h").find("example value"),
              std::string::npos);
  }
}

TEST(GpuCatalog, DatasheetFiguresConvertToSiUnits) {
  const GpuSpec& h100 = find_gpu("H100-SXM", "test");
  EXPECT_DOUBLE_EQ(h100.memory_bytes, 80.0 * kGiB);
  EXPECT_DOUBLE_EQ(h100.hbm_bandwidth_Bps, 3.35e12);
  EXPECT_DOUBLE_EQ(h100.flops_bf16, 989e12);
  EXPECT_DOUBLE_EQ(h100.flops_fp8, 1979e12);
  EXPECT_DOUBLE_EQ(h100.interconnect_Bps, 450e9);
  EXPECT_EQ(h100.nvlink_domain_size, 8);
  EXPECT_DOUBLE_EQ(h100.scale_out_Bps, 50e9);
  EXPECT_DOUBLE_EQ(h100.price_on_demand_per_h, 4.25);
  const GpuSpec& a100 = find_gpu("A100-80GB", "test");
  EXPECT_EQ(a100.flops_fp8, 0.0);  // no FP8 tensor cores
  EXPECT_GT(find_gpu("B200", "test").flops_fp4, 0.0);
}

TEST(GpuCatalog, NewGpusHavePlausibleFigures) {
  const GpuSpec& mi300x = find_gpu("MI300X", "t");
  EXPECT_DOUBLE_EQ(mi300x.memory_bytes, 192.0 * kGiB);
  EXPECT_DOUBLE_EQ(mi300x.flops_bf16, 1307.4e12);
  EXPECT_EQ(mi300x.flops_fp4, 0.0);  // CDNA 3 has no FP4
  EXPECT_EQ(mi300x.nvlink_domain_size, 8);
  EXPECT_DOUBLE_EQ(find_gpu("MI325X", "t").memory_bytes, 256.0 * kGiB);
  EXPECT_GT(find_gpu("MI355X", "t").flops_fp4, 0.0);

  const GpuSpec& gb200 = find_gpu("GB200", "t");
  EXPECT_EQ(gb200.nvlink_domain_size, 72);
  EXPECT_DOUBLE_EQ(gb200.interconnect_Bps, 900e9);
  EXPECT_DOUBLE_EQ(gb200.flops_fp4, 10000e12);
  const GpuSpec& gb300 = find_gpu("GB300", "t");
  EXPECT_EQ(gb300.nvlink_domain_size, 72);
  EXPECT_DOUBLE_EQ(gb300.scale_out_Bps, 100e9);  // ConnectX-8, 800 Gb/s
  EXPECT_GT(gb300.flops_fp4, gb200.flops_fp4);
  const GpuSpec& b300 = find_gpu("B300", "t");
  EXPECT_EQ(b300.nvlink_domain_size, 8);
  EXPECT_GT(b300.memory_bytes, find_gpu("B200", "t").memory_bytes);
  EXPECT_LT(b300.flops_int8, b300.flops_bf16);  // Blackwell Ultra cut INT8

  EXPECT_EQ(find_gpu("H100-PCIe", "t").nvlink_domain_size, 1);
  const GpuSpec& h100_nvl = find_gpu("H100-NVL", "t");
  EXPECT_EQ(h100_nvl.nvlink_domain_size, 2);
  EXPECT_DOUBLE_EQ(h100_nvl.memory_bytes, 94.0 * kGiB);
  EXPECT_DOUBLE_EQ(find_gpu("GH200", "t").pcie_Bps, 450e9);  // NVLink-C2C to Grace
  EXPECT_EQ(find_gpu("L4", "t").nvlink_domain_size, 1);
  EXPECT_EQ(find_gpu("A40", "t").nvlink_domain_size, 2);
}

TEST(GpuCatalog, LooksUpAliasesCaseInsensitively) {
  EXPECT_EQ(find_gpu("h100", "test").name, "H100-SXM");
  EXPECT_EQ(find_gpu("rtx4090", "test").name, "RTX-4090");
  EXPECT_EQ(find_gpu("a100", "test").name, "A100-80GB");
  EXPECT_EQ(find_gpu("mi300x", "test").name, "MI300X");
  EXPECT_EQ(find_gpu("GB200-NVL72", "test").name, "GB200");
  EXPECT_EQ(find_gpu("h100_sxm", "test").name, "H100-SXM");  // AIConfigurator's system name
  EXPECT_EQ(find_gpu("h100-pcie", "test").name, "H100-PCIe");
}

TEST(GpuCatalog, NamesAndAliasesAreUnique) {
  for (const std::string& name : gpu_names()) {
    const GpuSpec& gpu = find_gpu(name, "t");
    EXPECT_EQ(gpu.name, name);
    for (const std::string& alias : gpu.aliases) EXPECT_EQ(find_gpu(alias, "t").name, name);
  }
}

TEST(GpuCatalog, UnknownNameListsKnownOnes) {
  try {
    find_gpu("V100", "scenario.json: fleet.pools[0].gpu");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "scenario.json: fleet.pools[0].gpu: unknown GPU \"V100\"; known GPUs: A10G, L4, "
              "L40S, A40, A100-40GB, A100-80GB, H100-PCIe, H100-NVL, H100-SXM, H200, GH200, B200, "
              "B300, GB200, GB300, RTX-4090, Jetson-AGX-Orin-64GB, MI300X, MI325X, MI355X");
  }
}

nlohmann::json catalog_entry() {
  nlohmann::json entry = {{"name", "X1"}, {"aliases", {"x1"}}, {"source", "X1 datasheet"}};
  for (const char* key :
       {"memory_gib", "hbm_bandwidth_gb_per_s", "flops_bf16_tflops", "flops_fp8_tflops",
        "flops_int8_tflops", "flops_fp4_tflops", "interconnect_gb_per_s", "nvlink_domain_size",
        "scale_out_gb_per_s", "pcie_gb_per_s", "price_on_demand_per_h", "price_spot_per_h",
        "power_idle_w", "power_max_w"}) {
    entry[key] = {{"value", 1}, {"source", "sheet"}};
  }
  return entry;
}

std::string catalog_error_of(const nlohmann::json& entry) {
  try {
    JsonObjectReader reader(entry, "gpus.json", "gpus[0]");
    read_catalog_gpu(reader);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GpuCatalogEntry, SharesTheInlineChecksAndNamesTheFigure) {
  EXPECT_EQ(catalog_error_of(catalog_entry()), "no error");
  nlohmann::json entry = catalog_entry();
  entry["memory_gib"]["value"] = -1;
  EXPECT_EQ(catalog_error_of(entry), "gpus.json: gpus[0].memory_gib.value: must be > 0");
  entry = catalog_entry();
  entry["nvlink_domain_size"]["value"] = 0;
  EXPECT_EQ(catalog_error_of(entry), "gpus.json: gpus[0].nvlink_domain_size.value: must be >= 1");
  entry = catalog_entry();
  entry["nvlink_domain_size"]["value"] = 1.5;
  EXPECT_EQ(catalog_error_of(entry),
            "gpus.json: gpus[0].nvlink_domain_size.value: must be an integer");
  entry = catalog_entry();
  entry["scale_out_gb_per_s"].erase("source");
  EXPECT_EQ(catalog_error_of(entry), "gpus.json: gpus[0].scale_out_gb_per_s.source: missing");
  entry = catalog_entry();
  entry["pcie_gb_per_s"] = 32;  // a bare number: catalog figures carry their source
  EXPECT_EQ(catalog_error_of(entry), "gpus.json: gpus[0].pcie_gb_per_s: must be an object");
  entry = catalog_entry();
  entry["name"] = "";
  EXPECT_EQ(catalog_error_of(entry), "gpus.json: gpus[0].name: must not be empty");
}

TEST(InlineGpu, ParsesEveryKeyExactly) {
  const nlohmann::json object = {{"name", "lab-box"},
                                 {"source", "our own measurements"},
                                 {"memory_gib", 96},
                                 {"hbm_bandwidth_gb_per_s", 3000},
                                 {"flops_bf16_tflops", 800},
                                 {"flops_fp8_tflops", 1600},
                                 {"flops_int8_tflops", 1500},
                                 {"flops_fp4_tflops", 3200},
                                 {"interconnect_gb_per_s", 400},
                                 {"nvlink_domain_size", 4},
                                 {"scale_out_gb_per_s", 50},
                                 {"pcie_gb_per_s", 64},
                                 {"price_on_demand_per_h", 3.5},
                                 {"price_spot_per_h", 1.25}};
  const GpuSpec gpu = parse_gpu_object(object, kWhere, kPath);
  EXPECT_EQ(gpu.name, "lab-box");
  EXPECT_EQ(gpu.source, "our own measurements");
  EXPECT_TRUE(gpu.aliases.empty());
  EXPECT_DOUBLE_EQ(gpu.memory_bytes, 96.0 * kGiB);
  EXPECT_DOUBLE_EQ(gpu.hbm_bandwidth_Bps, 3000e9);
  EXPECT_DOUBLE_EQ(gpu.flops_bf16, 800e12);
  EXPECT_DOUBLE_EQ(gpu.flops_fp8, 1600e12);
  EXPECT_DOUBLE_EQ(gpu.flops_int8, 1500e12);
  EXPECT_DOUBLE_EQ(gpu.flops_fp4, 3200e12);
  EXPECT_DOUBLE_EQ(gpu.interconnect_Bps, 400e9);
  EXPECT_EQ(gpu.nvlink_domain_size, 4);
  EXPECT_DOUBLE_EQ(gpu.scale_out_Bps, 50e9);
  EXPECT_DOUBLE_EQ(gpu.pcie_Bps, 64e9);
  EXPECT_DOUBLE_EQ(gpu.price_on_demand_per_h, 3.5);
  EXPECT_DOUBLE_EQ(gpu.price_spot_per_h, 1.25);
  EXPECT_EQ(gpu.sources.size(), 14u);
  EXPECT_EQ(gpu.sources.at("flops_fp4_tflops"), "given inline");
}

TEST(InlineGpu, OptionalKeysTakeDocumentedDefaults) {
  const GpuSpec gpu = parse_gpu_object(minimal_inline_gpu(), kWhere, kPath);
  EXPECT_EQ(gpu.name, "my-accelerator");
  EXPECT_EQ(gpu.source, "inline GPU at scenario.json: fleet.pools[0].gpu");
  EXPECT_DOUBLE_EQ(gpu.memory_bytes, 64.0 * kGiB);
  EXPECT_EQ(gpu.flops_fp8, 0.0);
  EXPECT_EQ(gpu.flops_int8, 0.0);
  EXPECT_EQ(gpu.flops_fp4, 0.0);
  EXPECT_DOUBLE_EQ(gpu.pcie_Bps, 32e9);          // PCIe 4.0 x16, one direction
  EXPECT_DOUBLE_EQ(gpu.interconnect_Bps, 32e9);  // no scale-up link: over PCIe
  EXPECT_EQ(gpu.nvlink_domain_size, 1);
  EXPECT_EQ(gpu.scale_out_Bps, 0.0);
  EXPECT_EQ(gpu.price_on_demand_per_h, 0.0);
  EXPECT_EQ(gpu.price_spot_per_h, 0.0);
  EXPECT_EQ(gpu.sources.size(), 14u);
  EXPECT_EQ(gpu.sources.at("pcie_gb_per_s").rfind("default: ", 0), 0u);

  nlohmann::json priced = minimal_inline_gpu();
  priced["price_on_demand_per_h"] = 2.0;
  priced["pcie_gb_per_s"] = 64;
  const GpuSpec with_price = parse_gpu_object(priced, kWhere, kPath);
  EXPECT_DOUBLE_EQ(with_price.price_spot_per_h, 2.0);  // no spot discount assumed
  EXPECT_DOUBLE_EQ(with_price.interconnect_Bps, 64e9);
}

TEST(InlineGpu, BadValuesNameTheirJsonPath) {
  struct Case {
    const char* key;
    nlohmann::json value;  // null: remove the key
    std::string message;
  };
  const std::string at = "scenario.json: fleet.pools[0].gpu.";
  const std::vector<Case> cases = {
      {"memory_gib", nullptr, at + "memory_gib: missing"},
      {"name", nullptr, at + "name: missing"},
      {"name", "", at + "name: must not be empty"},
      {"flops_bf16_tflops", "fast", at + "flops_bf16_tflops: must be a number"},
      {"hbm_bandwidth_gb_per_s", -1, at + "hbm_bandwidth_gb_per_s: must be > 0"},
      {"memory_gib", 0, at + "memory_gib: must be > 0"},
      {"interconnect_gb_per_s", -5, at + "interconnect_gb_per_s: must be >= 0"},
      {"price_spot_per_h", "cheap", at + "price_spot_per_h: must be a number"},
      {"nvlink_domain_size", 0, at + "nvlink_domain_size: must be >= 1"},
      {"nvlink_domain_size", 2.5, at + "nvlink_domain_size: must be an integer"},
      {"tflops", 100, at + "tflops: unknown key"},
      {"power_max_w", -700, at + "power_max_w: must be >= 0"},
      {"power_idle_w", 80, at + "power_max_w: must be > 0 when power_idle_w is given"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.key);
    nlohmann::json gpu = minimal_inline_gpu();
    if (c.value.is_null()) {
      gpu.erase(c.key);
    } else {
      gpu[c.key] = c.value;
    }
    EXPECT_EQ(error_of(gpu), c.message);
  }
}

TEST(InlineGpu, PowerFiguresAreOptionalAndIdleStaysBelowMax) {
  nlohmann::json gpu = minimal_inline_gpu();
  EXPECT_EQ(parse_gpu_object(gpu, kWhere, kPath).power_max_w, 0.0);  // unknown
  gpu["power_idle_w"] = 90;
  gpu["power_max_w"] = 600;
  const GpuSpec powered = parse_gpu_object(gpu, kWhere, kPath);
  EXPECT_DOUBLE_EQ(powered.power_idle_w, 90.0);
  EXPECT_DOUBLE_EQ(powered.power_max_w, 600.0);
  gpu["power_idle_w"] = 700;
  EXPECT_EQ(error_of(gpu),
            "scenario.json: fleet.pools[0].gpu.power_idle_w: must be <= power_max_w");
}

TEST(InlineGpu, ADomainOfSeveralGpusNeedsAScaleUpLink) {
  nlohmann::json gpu = minimal_inline_gpu();
  gpu["nvlink_domain_size"] = 8;
  gpu["interconnect_gb_per_s"] = 0;
  EXPECT_EQ(error_of(gpu),
            "scenario.json: fleet.pools[0].gpu.interconnect_gb_per_s: must be > 0 when "
            "nvlink_domain_size > 1");
}

TEST(ResolveGpu, TakesCatalogNamesAndInlineObjects) {
  EXPECT_EQ(resolve_gpu("h200", kWhere, kPath).name, "H200");
  EXPECT_EQ(resolve_gpu(minimal_inline_gpu(), kWhere, kPath).name, "my-accelerator");
  EXPECT_EQ(error_of("V100").rfind("scenario.json: fleet.pools[0].gpu: unknown GPU \"V100\"", 0),
            0u);
  EXPECT_EQ(error_of(42),
            "scenario.json: fleet.pools[0].gpu: must be a catalog GPU name (a string) or an "
            "inline GPU (an object)");
  EXPECT_EQ(error_of(nlohmann::json::array()),
            "scenario.json: fleet.pools[0].gpu: must be a catalog GPU name (a string) or an "
            "inline GPU (an object)");
}

}  // namespace
}  // namespace tidal::perf
