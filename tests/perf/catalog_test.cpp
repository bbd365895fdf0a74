// The hardware and model catalogs: every entry complete and sourced, lookups, parameter counts.
#include <gtest/gtest.h>

#include "sim/perf/dtype.h"
#include "sim/perf/gpu_catalog.h"
#include "sim/perf/model_catalog.h"
#include "traces/input_error.h"

namespace tidal::perf {
namespace {

TEST(GpuCatalog, HoldsTheRequiredGpus) {
  const std::vector<std::string> expected = {"A10G",      "L4",       "L40S", "A40",  "A100-40GB",
                                             "A100-80GB", "H100-SXM", "H200", "B200", "RTX-4090"};
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
                                            "pcie_gb_per_s",
                                            "price_on_demand_per_h",
                                            "price_spot_per_h"};
  for (const std::string& name : gpu_names()) {
    SCOPED_TRACE(name);
    const GpuSpec& gpu = find_gpu(name, "test");
    EXPECT_FALSE(gpu.source.empty());
    EXPECT_GT(gpu.memory_bytes, 0);
    EXPECT_GT(gpu.hbm_bandwidth_Bps, 0);
    EXPECT_GT(gpu.flops_bf16, 0);
    EXPECT_GT(gpu.flops_int8, 0);
    EXPECT_GT(gpu.interconnect_Bps, 0);
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

TEST(GpuCatalog, DatasheetFiguresConvertToSiUnits) {
  const GpuSpec& h100 = find_gpu("H100-SXM", "test");
  EXPECT_DOUBLE_EQ(h100.memory_bytes, 80.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(h100.hbm_bandwidth_Bps, 3.35e12);
  EXPECT_DOUBLE_EQ(h100.flops_bf16, 989e12);
  EXPECT_DOUBLE_EQ(h100.flops_fp8, 1979e12);
  EXPECT_DOUBLE_EQ(h100.interconnect_Bps, 450e9);
  EXPECT_DOUBLE_EQ(h100.price_on_demand_per_h, 4.25);
  const GpuSpec& a100 = find_gpu("A100-80GB", "test");
  EXPECT_EQ(a100.flops_fp8, 0.0);  // no FP8 tensor cores
  EXPECT_GT(find_gpu("B200", "test").flops_fp4, 0.0);
}

TEST(GpuCatalog, LooksUpAliasesCaseInsensitively) {
  EXPECT_EQ(find_gpu("h100", "test").name, "H100-SXM");
  EXPECT_EQ(find_gpu("rtx4090", "test").name, "RTX-4090");
  EXPECT_EQ(find_gpu("a100", "test").name, "A100-80GB");
}

TEST(GpuCatalog, UnknownNameListsKnownOnes) {
  try {
    find_gpu("V100", "scenario.json: fleet.pools[0].gpu");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "scenario.json: fleet.pools[0].gpu: unknown GPU \"V100\"; known GPUs: A10G, L4, "
              "L40S, A40, A100-40GB, A100-80GB, H100-SXM, H200, B200, RTX-4090");
  }
}

TEST(ModelCatalog, HoldsTheRequiredModels) {
  for (const char* name :
       {"llama-3-8b", "llama-3-70b", "llama-2-7b", "llama-2-70b", "qwen2.5-7b", "qwen2.5-72b",
        "mixtral-8x7b", "deepseek-v3", "codellama-34b", "tiny-llama-15m", "tiny-llama-110m"}) {
    SCOPED_TRACE(name);
    const ModelSpec& m = find_model(name, "test");
    EXPECT_GT(m.num_layers, 0);
    EXPECT_GT(m.hidden, 0);
    EXPECT_GT(m.head_dim, 0);
    EXPECT_GT(m.intermediate, 0);
    EXPECT_GT(m.vocab, 0);
    EXPECT_GT(m.max_position, 0);
    EXPECT_FALSE(m.source.empty());
  }
  for (const std::string& name : model_names()) EXPECT_FALSE(find_model(name, "t").source.empty());
}

TEST(ModelCatalog, ParameterCountsMatchPublishedSizes) {
  EXPECT_NEAR(find_model("llama-3-8b", "t").total_params() / 1e9, 8.03, 0.01);
  EXPECT_NEAR(find_model("llama-2-70b", "t").total_params() / 1e9, 68.98, 0.01);
  EXPECT_NEAR(find_model("llama-2-7b", "t").total_params() / 1e9, 6.74, 0.01);
  const ModelSpec& mixtral = find_model("mixtral-8x7b", "t");
  EXPECT_NEAR(mixtral.total_params() / 1e9, 46.7, 0.1);
  EXPECT_NEAR(mixtral.active_params() / 1e9, 12.9, 0.1);
  const ModelSpec& deepseek = find_model("deepseek-v3", "t");
  EXPECT_NEAR(deepseek.total_params() / 1e9, 674, 2);
  EXPECT_NEAR(deepseek.active_params() / 1e9, 40.6, 0.5);
  EXPECT_NE(deepseek.notes.find("APPROXIMATION"), std::string::npos);
  EXPECT_NEAR(find_model("tiny-llama-15m", "t").total_params() / 1e6, 15.2, 0.1);
  EXPECT_NEAR(find_model("tiny-llama-110m", "t").total_params() / 1e6, 110, 1);
  EXPECT_EQ(find_model("llama-3-8b", "t").total_params(),
            find_model("llama-3-8b", "t").active_params());
}

TEST(ModelCatalog, LooksUpHuggingFaceNames) {
  EXPECT_EQ(find_model("meta-llama/Llama-2-70b-hf", "t").name, "llama-2-70b");
  EXPECT_EQ(find_model("Llama-2-70B-HF", "t").name, "llama-2-70b");
  EXPECT_THROW(find_model("gpt-5", "x"), InputError);
}

TEST(DType, ParsesAndSizes) {
  EXPECT_EQ(parse_dtype("fp8", "p"), DType::fp8);
  EXPECT_EQ(dtype_bytes(DType::bf16), 2.0);
  EXPECT_EQ(dtype_bytes(DType::int4), 0.5);
  EXPECT_EQ(dtype_name(DType::int8), "int8");
  try {
    parse_dtype("fp9", "fleet.pools[0].kv_dtype");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "fleet.pools[0].kv_dtype: unknown dtype \"fp9\"; expected one of fp32, bf16, fp16, "
              "fp8, int8, int4, fp4");
  }
}

}  // namespace
}  // namespace tidal::perf
