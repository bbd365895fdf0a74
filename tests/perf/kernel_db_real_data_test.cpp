// The kernel-table step-time model on the real AIConfigurator tables
// (../shared/profiles/aiconfigurator; every test skips without them): exact at a measured row,
// coverage of real models, linear-attention models, a sanity check against the roofline, GB200's
// collectives and the imported profile.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "perf/hf_config.h"
#include "perf/kernel_db_costs.h"
#include "perf/kernel_db_coverage.h"
#include "perf/kernel_db_lookup.h"
#include "perf/kernel_db_model.h"
#include "perf/kernel_db_profile.h"
#include "perf/kernel_db_scaling.h"
#include "perf/kernel_db_tables.h"
#include "perf/profiled_model.h"
#include "perf/roofline_model.h"
#include "tests/perf/kernel_db_test_util.h"

namespace tidal::perf {
namespace {

using namespace kdb_test;

std::string real_dir() {
  return std::string(TIDAL_SHARED_DIR) + "/profiles/aiconfigurator";
}

#define SKIP_WITHOUT_REAL_DATA()                                 \
  if (!fs::is_directory(real_dir() + "/h200_sxm/vllm-0.19.0")) { \
    GTEST_SKIP() << real_dir() << " absent";                     \
  }

// The latency (ms) of the first row of `file` starting with `prefix`, or -1.
double real_row_ms(const std::string& file, const std::string& prefix) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return std::stod(line.substr(line.find_last_of(',') + 1));
  }
  return -1.0;
}

ModelSpec real_model(const std::string& name) {
  if (const ModelSpec* m = lookup_model(name)) return *m;
  return load_hf_config(std::string(TIDAL_SHARED_DIR) + "/models/hf-configs/" + name);
}

TEST(KernelDbRealData, ExactAtAMeasuredRow) {
  SKIP_WITHOUT_REAL_DATA();
  const std::string file = real_dir() + "/h200_sxm/vllm-0.19.0/gemm_perf.csv";
  const double ms = real_row_ms(file, "bfloat16,512,6144,4096,");
  ASSERT_GT(ms, 0);
  const auto tables = kernel_db_tables(spec_of(real_dir()), h200());
  const KernelScaling scaling(h200(), RooflineOptions{});
  const GemmLookup qkv(*tables, {"bfloat16"}, 6144, 4096, scaling);  // Llama-3.1-8B's qkv at tp 1
  EXPECT_DOUBLE_EQ(qkv.seconds(512), ms * 1e-3);
  const double at_256 = real_row_ms(file, "bfloat16,256,6144,4096,") * 1e-3;
  const double at_300 = qkv.seconds(300);
  EXPECT_GE(at_300, std::min(at_256, ms * 1e-3));
  EXPECT_LE(at_300, std::max(at_256, ms * 1e-3));
}

TEST(KernelDbRealData, CoverageOfFourModelsOnH200Vllm) {
  SKIP_WITHOUT_REAL_DATA();
  struct Case {
    const char* model;
    int32_t tp;
  };
  for (const Case& c :
       {Case{"llama-3.1-8b", 1}, Case{"qwen3-32b", 1},
        Case{"Qwen--Qwen3-235B-A22B-FP8_config.json", 4}, Case{"gpt-oss-120b", 1}}) {
    const ModelSpec model = real_model(c.model);
    Deployment d;
    d.tp = c.tp;
    d.weight_dtype = model.quant.dtype;
    KernelDbCoverage coverage;
    auto kernel_db =
        make_kernel_db_model(spec_of(real_dir()), model, h200(), d, RooflineOptions{}, &coverage);
    auto roofline = make_roofline_model(model, h200(), d);
    const std::vector<SeqWork> decode = {{1, 1000, 1}};
    const std::vector<SeqWork> prefill = {{4096, 0, 1}};
    std::printf(
        "%s tp %d: decode batch 1 at 1000: kernel_db %.3f ms, roofline %.3f ms; "
        "prefill 4096: kernel_db %.3f ms, roofline %.3f ms\n",
        model.name.c_str(), c.tp, kernel_db->step_seconds(decode) * 1e3,
        roofline->step_seconds(decode) * 1e3, kernel_db->step_seconds(prefill) * 1e3,
        roofline->step_seconds(prefill) * 1e3);
    std::printf("%s tp %d on %s: %d table, %d scaled, %d roofline, %d unused\n", model.name.c_str(),
                c.tp, coverage.tables.c_str(), coverage.count(CoverageKind::table),
                coverage.count(CoverageKind::scaled), coverage.count(CoverageKind::roofline),
                coverage.count(CoverageKind::unused));
    for (const OperatorCoverage& op : coverage.operators) {
      std::printf("  %-18s %-8s %s\n", std::string(op_class_name(op.op)).c_str(),
                  std::string(coverage_kind_name(op.kind)).c_str(), op.detail.c_str());
    }
    for (OpClass op : {OpClass::qkv_proj, OpClass::o_proj, OpClass::attention_prefill,
                       OpClass::attention_decode, OpClass::lm_head}) {
      EXPECT_NE(coverage.of(op).kind, CoverageKind::roofline)
          << model.name << " " << op_class_name(op);
    }
    if (model.is_moe()) {
      EXPECT_NE(coverage.of(OpClass::moe_experts).kind, CoverageKind::roofline);
    }
    if (c.tp > 1) {
      EXPECT_EQ(coverage.of(OpClass::allreduce).kind, CoverageKind::table);
    }
  }
}

// Qwen3.5's Gated DeltaNet layers: their projections are GEMMs from the tables, their recurrent
// core the roofline's (the tables hold no such kernel), said in the attention classes' coverage.
TEST(KernelDbRealData, Qwen35LinearLayersPriceTheirCoreByTheRoofline) {
  SKIP_WITHOUT_REAL_DATA();
  const ModelSpec model = real_model("Qwen--Qwen3.5-397B-A17B_config.json");
  Deployment d;
  d.tp = 8;
  d.ep = 8;
  d.weight_dtype = DType::fp8;
  d.kv_dtype = DType::fp8;
  KernelDbCoverage coverage;
  auto kernel_db = make_kernel_db_model(spec_of(real_dir(), "sglang"), model, h200(), d,
                                        RooflineOptions{}, &coverage);
  for (OpClass op : {OpClass::qkv_proj, OpClass::o_proj}) {
    EXPECT_NE(coverage.of(op).kind, CoverageKind::roofline) << op_class_name(op);
  }
  for (OpClass op : {OpClass::attention_prefill, OpClass::attention_decode}) {
    EXPECT_EQ(coverage.of(op).kind, CoverageKind::roofline) << op_class_name(op);
    EXPECT_NE(coverage.of(op).detail.find("15 layers: "), std::string::npos)
        << coverage.of(op).detail;
    EXPECT_NE(coverage.of(op).detail.find("45 linear-attention layers: roofline"),
              std::string::npos)
        << coverage.of(op).detail;
  }
  // A decode's linear layers read and write a fixed state: the step barely grows with context.
  const double short_context = kernel_db->step_seconds(std::vector<SeqWork>{{1, 1000, 1}});
  const double long_context = kernel_db->step_seconds(std::vector<SeqWork>{{1, 100000, 1}});
  EXPECT_GT(long_context, short_context);
  EXPECT_LT(long_context, 1.5 * short_context);
  expect_input_error(
      [&] { kernel_db_profile(spec_of(real_dir(), "sglang"), model, h200(), d); },
      {"Qwen/Qwen3.5-397B-A17B mixes 45 linear-attention layers with 15 attention layers"});
}

TEST(KernelDbRealData, Llama8bOnH200VllmWithinAFactorTwoOfTheRoofline) {
  SKIP_WITHOUT_REAL_DATA();
  const ModelSpec& model = find_model("llama-3.1-8b", "t");
  auto kernel_db = make_kernel_db_model(spec_of(real_dir()), model, h200(), Deployment{});
  auto roofline = make_roofline_model(model, h200(), Deployment{});
  struct Step {
    const char* name;
    std::vector<SeqWork> batch;
  };
  const std::vector<Step> steps = {
      {"decode, batch 1, context 1000", {{1, 1000, 1}}},
      {"prefill, 4096 tokens", {{4096, 0, 1}}},
      {"decode, batch 64, context 2000", std::vector<SeqWork>(64, SeqWork{1, 2000, 1})},
      {"chunk 2048 on 2048 + 32 decodes",
       [] {
         std::vector<SeqWork> b(32, SeqWork{1, 3000, 1});
         b.push_back({2048, 2048, 0});
         return b;
       }()},
  };
  for (const Step& s : steps) {
    const double k = kernel_db->step_seconds(s.batch);
    const double r = roofline->step_seconds(s.batch);
    std::printf(
        "llama-3.1-8b H200 vllm bf16 tp1, %s: kernel_db %.3f ms, roofline %.3f ms (%.2fx)\n",
        s.name, k * 1e3, r * 1e3, k / r);
    if (std::string(s.name).starts_with("decode, batch 1") ||
        std::string(s.name).starts_with("prefill")) {
      EXPECT_GT(k, r / 2) << s.name;
      EXPECT_LT(k, r * 2) << s.name;
    }
  }
}

TEST(KernelDbRealData, Gb200PricesB200KernelsWithItsOwnCollectives) {
  SKIP_WITHOUT_REAL_DATA();
  const KernelDbFolders f = resolve_kernel_db_folders(spec_of(real_dir()), find_gpu("GB200", "t"));
  EXPECT_EQ(f.kernel_gpu, "b200_sxm");
  EXPECT_EQ(f.collective_gpu, "gb200");
  EXPECT_NE(f.allreduce_dir.find("gb200/vllm-0.19.0"), std::string::npos);
  expect_input_error(
      [&] { resolve_kernel_db_folders(spec_of(real_dir()), find_gpu("H100-PCIe", "t")); },
      {"h100_sxm/ for H100-SXM", "gb200/ for GB200"});
}

// vLLM's H100 tables hold no mxfp4 experts; gpt-oss-120b's come from the H200's (the same
// chip), scaled: slower than the H200's at a memory-bound decode, never the roofline's.
TEST(KernelDbRealData, H100GptOssExpertsFromTheH200sKernel) {
  SKIP_WITHOUT_REAL_DATA();
  const ModelSpec model = real_model("gpt-oss-120b");
  Deployment d;
  d.tp = 2;
  d.weight_dtype = model.quant.dtype;
  KernelDbCoverage coverage;
  auto on_h100 = make_kernel_db_model(spec_of(real_dir()), model, find_gpu("H100-SXM", "t"), d,
                                      RooflineOptions{}, &coverage);
  const OperatorCoverage& experts = coverage.of(OpClass::moe_experts);
  EXPECT_EQ(experts.kind, CoverageKind::scaled) << experts.detail;
  EXPECT_NE(experts.detail.find("w4a16_mxfp4"), std::string::npos) << experts.detail;
  EXPECT_NE(experts.detail.find("measured on h200_sxm"), std::string::npos) << experts.detail;
  auto on_h200 =
      make_kernel_db_model(spec_of(real_dir()), model, h200(), d, RooflineOptions{}, &coverage);
  EXPECT_EQ(coverage.of(OpClass::moe_experts).kind, CoverageKind::table);
  const std::vector<SeqWork> decode(4, SeqWork{1, 1000, 1});
  const double h100_s = on_h100->breakdown(decode)[OpClass::moe_experts];
  const double h200_s = on_h200->breakdown(decode)[OpClass::moe_experts];
  EXPECT_GT(h100_s, h200_s);
  EXPECT_LT(h100_s, h200_s * 4.8 / 3.35 * 1.001);  // at most the HBM bandwidth ratio
}

TEST(KernelDbRealData, ImportedProfileReproducesTheModelAtGridPoints) {
  SKIP_WITHOUT_REAL_DATA();
  const ModelSpec& model = find_model("llama-3.1-8b", "t");
  Deployment d;
  d.tp = 2;
  const Profile profile = kernel_db_profile(spec_of(real_dir()), model, h200(), d);
  EXPECT_EQ(profile.attention_source, TimeSource::measured);
  EXPECT_EQ(profile.allreduce.source, TimeSource::measured);
  auto profiled = make_profiled_model(profile, model, h200(), d, "kernel_db profile");
  auto kernel_db = make_kernel_db_model(spec_of(real_dir()), model, h200(), d);
  for (const std::vector<SeqWork>& batch :
       {std::vector<SeqWork>{{1, 1024, 1}}, std::vector<SeqWork>{{2048, 0, 1}},
        std::vector<SeqWork>(16, SeqWork{1, 4096, 1})}) {
    EXPECT_NEAR(profiled->step_seconds(batch) / kernel_db->step_seconds(batch), 1.0, 1e-6);
  }
}

}  // namespace
}  // namespace tidal::perf
