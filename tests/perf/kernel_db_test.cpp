// The kernel-table step-time model on synthetic tables: interpolation along measured sizes,
// scaling to unmeasured shapes and sizes, roofline fallbacks and their coverage, strict loading
// of the tables. kernel_db_real_data_test.cpp holds the checks on the real AIConfigurator data.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "perf/kernel_db_costs.h"
#include "perf/kernel_db_curve.h"
#include "perf/kernel_db_lookup.h"
#include "perf/kernel_db_model.h"
#include "perf/kernel_db_tables.h"
#include "perf/roofline_model.h"
#include "tests/perf/kernel_db_test_util.h"

namespace tidal::perf {
namespace {

using namespace kdb_test;

// --- Helpers -------------------------------------------------------------------------------

// tiny-llama-15m: 6 layers, hidden 288, 6 heads (6 KV heads) of 48, MLP 768, vocab 32000.
const ModelSpec& tiny() {
  return find_model("tiny-llama-15m", "t");
}

// Synthetic latency of a GEMM, in ms: a fixed 5 us plus 1 TFLOP/s.
double gemm_ms(int64_t m, int64_t n, int64_t k) {
  return 0.005 + 2.0 * static_cast<double>(m * n * k) / 1e9;
}

const std::vector<int64_t> kGemmM = {1, 8, 64, 512, 4096};

// A kernel database for tiny-llama-15m on H200 ("vllm-0.1.0"): every GEMM shape of the model at
// tp 1 but the LM head (n = 16000 stands in for 32000), attention of its shape, an all-reduce
// over 2 GPUs. Returns the database dir.
fs::path write_synthetic_db(const fs::path& root) {
  const fs::path engine = root / "h200_sxm" / "vllm-0.1.0";
  std::string gemm = "gemm_dtype,m,n,k,latency\n";
  const int64_t shapes[][2] = {{864, 288}, {288, 288}, {1536, 288}, {288, 768}, {16000, 288}};
  for (const auto& [n, k] : shapes) {
    for (const int64_t m : kGemmM)
      gemm += fmt::format("bfloat16,{},{},{},{}\n", m, n, k, gemm_ms(m, n, k));
  }
  write_file(engine / "gemm_perf.csv", gemm);
  // Context attention: 0.01 ms + 1e-8 ms per query-key pair and head; batch 4 skips isl 1024.
  std::string context =
      "batch_size,isl,num_heads,num_key_value_heads,head_dim,kv_cache_dtype,window_size,latency\n";
  for (const int64_t b : {1, 4}) {
    for (const int64_t s : {16, 128, 1024}) {
      if (b == 4 && s == 1024) continue;
      context += fmt::format("{},{},6,6,48,bfloat16,0,{}\n", b, s, 0.01 + 1e-8 * 6 * b * s * s / 2);
    }
  }
  write_file(engine / "context_attention_perf.csv", context);
  std::string generation =
      "batch_size,num_heads,num_key_value_heads,head_dim,kv_cache_dtype,step,window_size,latency\n";
  for (const int64_t b : {1, 8}) {
    for (const int64_t s : {15, 255, 4095}) {
      generation += fmt::format("{},6,6,48,bfloat16,{},0,{}\n", b, s, 0.008 + 1e-7 * b * s);
    }
  }
  write_file(engine / "generation_attention_perf.csv", generation);
  write_file(engine / "moe_perf.csv",
             "version,kernel_source,moe_dtype,num_tokens,hidden_size,inter_size,topk,num_experts,"
             "moe_tp_size,moe_ep_size,distribution,latency\n"
             "0.1.0,a,bfloat16,1,288,768,2,8,1,1,balanced,0.02\n"
             "0.1.0,a,bfloat16,1,288,768,2,8,1,1,balanced,0.05\n"  // a slower repeat
             "0.1.0,a,bfloat16,64,288,768,2,8,1,1,balanced,0.04\n"
             "0.1.0,b,bfloat16,64,288,768,2,8,1,1,balanced,0.03\n"   // a faster kernel wins
             "0.2.0,a,bfloat16,64,288,768,2,8,1,1,balanced,0.01\n"   // another version's: ignored
             "0.2.0,a,bfloat16,512,288,768,2,8,1,1,balanced,0.07\n"  // only there: used
             "0.1.0,a,bfloat16,1,288,768,2,8,1,1,power_law_1.2,0.5\n");
  write_file(engine / "custom_allreduce_perf.csv",
             "kernel_source,num_gpus,message_size,latency,backend\n"
             "x_graph,2,288,0.004,x_graph\n"
             "x_eager,2,288,0.02,x_eager\n"
             "x_graph,2,294912,0.01,x_graph\n"
             "x_eager,2,294912,0.03,x_eager\n");
  write_file(root / "h200_sxm" / "nccl" / "nccl_perf.csv",
             "op_name,nccl_dtype,num_gpus,message_size,latency\n"
             "all_reduce,half,4,256,0.02\n"
             "all_reduce,half,4,1048576,0.05\n"
             "all_gather,half,4,256,0.01\n");
  return root;
}

KernelDbTables load_synthetic(const fs::path& dir) {
  return load_kernel_db_tables(resolve_kernel_db_folders(spec_of(dir), h200()));
}

// --- Interpolation mechanism -----------------------------------------------------------------

TEST(KernelDbCurve, ExactAtPointsMonotoneBetweenPowerLawExact) {
  const MeasuredCurve curve({1, 10, 100}, {2e-6, 2e-6, 2e-4});  // flat, then quadratic
  EXPECT_DOUBLE_EQ(curve.at(1).seconds, 2e-6);
  EXPECT_DOUBLE_EQ(curve.at(10).seconds, 2e-6);
  EXPECT_DOUBLE_EQ(curve.at(100).seconds, 2e-4);
  EXPECT_DOUBLE_EQ(curve.at(5).seconds, 2e-6);
  EXPECT_NEAR(curve.at(50).seconds, 2e-6 * 25.0, 1e-15);  // y = 2e-8 x^2 between 10 and 100
  double last = 0.0;
  for (double x = 10; x <= 100; x += 1) {
    const double y = curve.at(x).seconds;
    EXPECT_GE(y, last);
    last = y;
  }
}

TEST(KernelDbCurve, OutsideTheRangeScalesTheEndByTheRoofline) {
  const MeasuredCurve curve({4, 16}, {1e-5, 3e-5});
  auto roofline = [](double x) { return 1e-6 * x; };
  EXPECT_DOUBLE_EQ(curve.seconds(32, roofline), 3e-5 * 2.0);
  EXPECT_DOUBLE_EQ(curve.seconds(2, roofline), 1e-5 * 0.5);
  EXPECT_FALSE(curve.at(32).inside);
  EXPECT_EQ(curve.at(32).anchor, 16);
}

TEST(KernelDbCurve, RaggedGridInterpolatesEachCurveThenAcrossThem) {
  CurveGrid grid;
  grid.add(1, MeasuredCurve({16, 1024}, {1e-5, 1e-3}));
  grid.add(4, MeasuredCurve({16, 128}, {2e-5, 4e-4}));  // shorter: large products skipped
  auto roofline = [](double b, double s) { return 1e-9 * b * s * s; };
  EXPECT_DOUBLE_EQ(grid.seconds(1, 16, roofline), 1e-5);
  EXPECT_DOUBLE_EQ(grid.seconds(4, 128, roofline), 4e-4);
  // Batch 4 beyond its curve: its last point scaled by the roofline (x4 for 128 -> 256).
  EXPECT_DOUBLE_EQ(grid.seconds(4, 256, roofline), 4e-4 * 4.0);
  const double mid = grid.seconds(2, 16, roofline);
  EXPECT_GT(mid, 1e-5);
  EXPECT_LT(mid, 2e-5);
  // Batch 8, beyond the last measured batch: batch 4 scaled by 8 / 4.
  EXPECT_DOUBLE_EQ(grid.seconds(8, 16, roofline), 2e-5 * 2.0);
}

// --- Synthetic tables: lookup, scaling, coverage ------------------------------------------------

TEST(KernelDbSynthetic, GemmExactAtMeasuredPointsAndBetweenNeighbours) {
  TempDir dir("gemm");
  const KernelDbTables tables = load_synthetic(write_synthetic_db(dir.path()));
  const KernelScaling scaling(h200(), RooflineOptions{});
  const GemmLookup qkv(tables, {"bfloat16"}, 864, 288, scaling);
  ASSERT_TRUE(qkv.found());
  EXPECT_TRUE(qkv.exact());
  for (const int64_t m : kGemmM) EXPECT_DOUBLE_EQ(qkv.seconds(m), gemm_ms(m, 864, 288) * 1e-3);
  for (const int64_t m : {2, 30, 100, 3000}) {
    const auto lo = *std::prev(std::upper_bound(kGemmM.begin(), kGemmM.end(), m));
    const auto hi = *std::upper_bound(kGemmM.begin(), kGemmM.end(), m);
    EXPECT_GT(qkv.seconds(m), gemm_ms(lo, 864, 288) * 1e-3) << m;
    EXPECT_LT(qkv.seconds(m), gemm_ms(hi, 864, 288) * 1e-3) << m;
  }
  // The costs multiply by the layers.
  const KernelDbCosts costs(std::make_shared<KernelDbTables>(tables), KernelDbSpec{}, tiny(),
                            h200(), Deployment{}, RooflineOptions{});
  EXPECT_DOUBLE_EQ(costs.token_seconds(OpClass::qkv_proj, 64), 6 * gemm_ms(64, 864, 288) * 1e-3);
}

TEST(KernelDbSynthetic, BeyondTheMeasuredRangeFollowsTheRoofline) {
  TempDir dir("extrapolate");
  const KernelDbTables tables = load_synthetic(write_synthetic_db(dir.path()));
  const KernelScaling scaling(h200(), RooflineOptions{});
  const GemmLookup up(tables, {"bfloat16"}, 1536, 288, scaling);
  const double last = gemm_ms(4096, 1536, 288) * 1e-3;
  const double ratio =
      scaling.gemm(16384, 1536, 288, "bfloat16") / scaling.gemm(4096, 1536, 288, "bfloat16");
  EXPECT_DOUBLE_EQ(up.seconds(16384), last * ratio);
  EXPECT_GT(up.seconds(16384), last);
}

TEST(KernelDbSynthetic, UnmeasuredShapeIsTheNearestScaledByTheRoofline) {
  TempDir dir("scaled");
  const KernelDbTables tables = load_synthetic(write_synthetic_db(dir.path()));
  const KernelScaling scaling(h200(), RooflineOptions{});
  const GemmLookup lm_head(tables, {"bfloat16"}, 32000, 288, scaling);
  ASSERT_TRUE(lm_head.found());
  EXPECT_EQ(lm_head.kind(), CoverageKind::scaled);
  EXPECT_NE(lm_head.describe().find("from measured n=16000 k=288"), std::string::npos);
  const double ratio =
      scaling.gemm(512, 32000, 288, "bfloat16") / scaling.gemm(512, 16000, 288, "bfloat16");
  EXPECT_DOUBLE_EQ(lm_head.seconds(512), gemm_ms(512, 16000, 288) * 1e-3 * ratio);
  const GemmLookup fp8(tables, {"fp8"}, 864, 288, scaling);
  EXPECT_FALSE(fp8.found());
  EXPECT_NE(fp8.describe().find("no gemm_perf rows of fp8"), std::string::npos);
}

TEST(KernelDbSynthetic, RowsMergedByKernelRepeatsAndVariant) {
  TempDir dir("merge");
  const KernelDbTables tables = load_synthetic(write_synthetic_db(dir.path()));
  const KernelScaling scaling(h200(), RooflineOptions{});
  MoeKey wanted;
  wanted.hidden = 288;
  wanted.inter = 768;
  wanted.topk = 2;
  wanted.num_experts = 8;
  const MoeLookup moe(tables, {"bfloat16"}, wanted, scaling);
  ASSERT_TRUE(moe.found());
  EXPECT_TRUE(moe.exact());
  EXPECT_NE(moe.describe().find("balanced"), std::string::npos);  // preferred over power_law
  EXPECT_DOUBLE_EQ(moe.seconds(1), 0.02e-3);
  EXPECT_DOUBLE_EQ(moe.seconds(64), 0.03e-3);
  EXPECT_DOUBLE_EQ(moe.seconds(512), 0.07e-3);
  const AllReduceLookup two(tables, 2, scaling);
  ASSERT_TRUE(two.found());
  EXPECT_DOUBLE_EQ(two.seconds(288), 0.004e-3);  // the CUDA-graph rows
  EXPECT_NE(two.describe().find("custom_allreduce_perf"), std::string::npos);
  const AllReduceLookup four(tables, 4, scaling);  // no custom rows for 4 GPUs: NCCL's
  ASSERT_TRUE(four.found());
  EXPECT_DOUBLE_EQ(four.seconds(256), 0.02e-3);
  EXPECT_FALSE(AllReduceLookup(tables, 8, scaling).found());
}

// An fp8 cache: a kernel measured with bf16 math over it keeps only those rows (its fp8-math rows
// are an option, TRT-LLM's fp8 context FMHA); a kernel measured over it only with fp8 math
// (SGLang's fa3) runs so, and the fastest kernel prices the shape.
TEST(KernelDbSynthetic, AttentionMathIsBf16UnlessTheKernelComputesInTheCachesDtype) {
  TempDir dir("attn-math");
  const fs::path engine = dir.path() / "h200_sxm" / "sglang-0.1.0";
  write_file(engine / "context_attention_perf.csv",
             "kernel_source,batch_size,isl,num_heads,num_key_value_heads,head_dim,attn_dtype,"
             "kv_cache_dtype,window_size,latency\n"
             "fa,1,1024,8,8,128,bfloat16,bfloat16,0,0.2\n"
             "fa,1,1024,8,8,128,fp8,fp8,0,0.1\n"  // fa's only rows over fp8: kept
             "tr,1,1024,8,8,128,bfloat16,fp8,0,0.5\n"
             "tr,1,1024,8,8,128,fp8,fp8,0,0.05\n"  // tr has bf16 math over fp8: dropped
             "tr,1,1024,8,8,64,bfloat16,fp8,0,0.7\n"
             "tr,1,1024,8,8,64,fp8,fp8,0,0.06\n");
  const KernelDbTables tables =
      load_kernel_db_tables(resolve_kernel_db_folders(spec_of(dir.path(), "sglang"), h200()));
  auto seconds = [&](const std::string& kv, int64_t head_dim) {
    const CurveGrid& grid = tables.context_attention.at({kv, 8, 8, head_dim, 0});
    return grid.seconds(1, 1024, [](double, double) { return 1.0; });
  };
  EXPECT_DOUBLE_EQ(seconds("fp8", 128), 0.1e-3);
  EXPECT_DOUBLE_EQ(seconds("fp8", 64), 0.7e-3);
  EXPECT_DOUBLE_EQ(seconds("bfloat16", 128), 0.2e-3);
}

TEST(KernelDbSynthetic, AttentionFromTablesWithTheStatedReduction) {
  TempDir dir("attention");
  const auto tables =
      std::make_shared<KernelDbTables>(load_synthetic(write_synthetic_db(dir.path())));
  const KernelDbCosts costs(tables, KernelDbSpec{}, tiny(), h200(), Deployment{},
                            RooflineOptions{});
  // One prefill of 128 tokens: batch 1, isl 128, all 6 layers.
  const SeqWork prompt{128, 0, 1};
  EXPECT_DOUBLE_EQ(costs.attention_seconds({&prompt, 1}).prefill,
                   6 * (0.01 + 1e-8 * 6 * 128 * 128 / 2) * 1e-3);
  // Four equal prompts: the batch-4 row, not four batch-1 kernels.
  const std::vector<SeqWork> four(4, SeqWork{16, 0, 1});
  EXPECT_DOUBLE_EQ(costs.attention_seconds(four).prefill,
                   6 * (0.01 + 1e-8 * 6 * 4 * 16 * 16 / 2) * 1e-3);
  // Decodes at the batch's mean context (255).
  const std::vector<SeqWork> decodes = {{1, 15, 1}, {1, 495, 1}};
  const double b1 = (0.008 + 1e-7 * 255) * 1e-3;
  const double b8 = (0.008 + 1e-7 * 8 * 255) * 1e-3;
  const double decode = costs.attention_seconds(decodes).decode / 6;
  EXPECT_GT(decode, b1);
  EXPECT_LT(decode, b8);
  // A chunk on cached tokens adds the roofline's cost of the cached context.
  const SeqWork chunk{128, 65536, 1};
  EXPECT_GT(costs.attention_seconds({&chunk, 1}).prefill,
            costs.attention_seconds({&prompt, 1}).prefill);
}

// A verification of k drafts is 1 + k rows of the generation table at its context, as
// AIConfigurator prices MTP steps; not a context-attention chunk.
TEST(KernelDbSynthetic, VerificationIsGenerationRowsAtItsContext) {
  TempDir dir("verification");
  const auto tables =
      std::make_shared<KernelDbTables>(load_synthetic(write_synthetic_db(dir.path())));
  const KernelDbCosts costs(tables, KernelDbSpec{}, tiny(), h200(), Deployment{},
                            RooflineOptions{});
  const std::vector<SeqWork> verify(2, SeqWork{2, 255, 2});
  const std::vector<SeqWork> decodes(4, SeqWork{1, 255, 1});
  const AttentionSeconds v = costs.attention_seconds(verify);
  EXPECT_EQ(v.prefill, 0.0);
  EXPECT_DOUBLE_EQ(v.decode, costs.attention_seconds(decodes).decode);
}

TEST(KernelDbSynthetic, CoverageCountsTablesScaledAndRoofline) {
  TempDir dir("coverage");
  KernelDbCoverage coverage;
  auto model = make_kernel_db_model(spec_of(write_synthetic_db(dir.path())), tiny(), h200(),
                                    Deployment{}, RooflineOptions{}, &coverage);
  EXPECT_EQ(coverage.tables, "h200_sxm/vllm-0.1.0");
  EXPECT_EQ(coverage.engine_version, "0.1.0");
  for (OpClass op : {OpClass::qkv_proj, OpClass::o_proj, OpClass::mlp_up_gate, OpClass::mlp_down,
                     OpClass::attention_prefill, OpClass::attention_decode}) {
    EXPECT_EQ(coverage.of(op).kind, CoverageKind::table)
        << op_class_name(op) << ": " << coverage.of(op).detail;
  }
  EXPECT_EQ(coverage.of(OpClass::lm_head).kind, CoverageKind::scaled);
  for (OpClass op : {OpClass::embedding, OpClass::norm, OpClass::rope, OpClass::mlp_act,
                     OpClass::residual_add, OpClass::sampling, OpClass::cpu_overhead}) {
    EXPECT_EQ(coverage.of(op).kind, CoverageKind::roofline) << op_class_name(op);
  }
  EXPECT_EQ(coverage.of(OpClass::moe_experts).kind, CoverageKind::unused);
  EXPECT_EQ(coverage.of(OpClass::allreduce).kind, CoverageKind::unused);
  EXPECT_EQ(coverage.count(CoverageKind::roofline), 7);
  // Elementwise classes are the roofline's own.
  const auto roofline = make_roofline_model(tiny(), h200(), Deployment{});
  const std::vector<SeqWork> batch = {{100, 0, 1}, {1, 300, 1}};
  const StepBreakdown a = model->breakdown(batch);
  const StepBreakdown b = roofline->breakdown(batch);
  for (OpClass op : {OpClass::norm, OpClass::rope, OpClass::sampling, OpClass::cpu_overhead}) {
    EXPECT_DOUBLE_EQ(a[op], b[op]) << op_class_name(op);
  }
  EXPECT_NEAR(model->step_seconds(batch), a.total_seconds(), 1e-12);
  const nlohmann::json json = coverage_json(coverage);
  EXPECT_EQ(json["operators"]["qkv_proj"]["source"], "table");
}

TEST(KernelDbSynthetic, MlaAttentionAndMissingDtypesFallBackToTheRoofline) {
  TempDir dir("mla");
  const fs::path db = write_synthetic_db(dir.path());
  KernelDbCoverage coverage;
  make_kernel_db_model(spec_of(db), find_model("deepseek-v3", "t"), h200(), Deployment{8},
                       RooflineOptions{}, &coverage);
  EXPECT_EQ(coverage.of(OpClass::attention_prefill).kind, CoverageKind::roofline);
  EXPECT_NE(coverage.of(OpClass::attention_decode).detail.find("MLA"), std::string::npos);
  Deployment fp8;
  fp8.weight_dtype = DType::fp8;
  fp8.kv_dtype = DType::fp8;
  make_kernel_db_model(spec_of(db), tiny(), h200(), fp8, RooflineOptions{}, &coverage);
  EXPECT_EQ(coverage.of(OpClass::qkv_proj).kind, CoverageKind::roofline);
  EXPECT_NE(coverage.of(OpClass::qkv_proj).detail.find("no gemm_perf rows of fp8"),
            std::string::npos);
  EXPECT_EQ(coverage.of(OpClass::attention_decode).kind, CoverageKind::roofline);
  EXPECT_EQ(coverage.of(OpClass::lm_head).kind, CoverageKind::scaled);  // bf16 whatever the weights
}

// A named GEMM dtype the GPU's tables lack (NVFP4 on Hopper) gives way to the weights' own; one
// they hold is used whatever the weights suggest.
TEST(KernelDbSynthetic, NamedDtypeFirstThenTheWeightsOwn) {
  TempDir dir("named");
  const fs::path db = write_synthetic_db(dir.path());
  std::string rows;
  for (const char* dtype : {"fp8", "sq"}) {
    for (const int64_t m : kGemmM) rows += fmt::format("{},{},864,288,{}\n", dtype, m, 0.001);
  }
  std::ofstream(db / "h200_sxm" / "vllm-0.1.0" / "gemm_perf.csv", std::ios::app) << rows;
  Deployment fp8;
  fp8.weight_dtype = DType::fp8;
  KernelDbSpec spec = spec_of(db);
  KernelDbCoverage coverage;
  auto detail = [&](const std::string& named) {
    spec.gemm_dtype = named;
    make_kernel_db_model(spec, tiny(), h200(), fp8, RooflineOptions{}, &coverage);
    EXPECT_EQ(coverage.of(OpClass::qkv_proj).kind, CoverageKind::table) << named;
    return coverage.of(OpClass::qkv_proj).detail;
  };
  EXPECT_NE(detail("nvfp4").find("gemm fp8 n=864 k=288"), std::string::npos);
  EXPECT_NE(detail("sq").find("gemm sq n=864 k=288"), std::string::npos);
  EXPECT_NE(detail("").find("gemm fp8 n=864 k=288"), std::string::npos);
}

// Routed experts the H100's tables hold no rows of are priced from the H200's (the same GH100
// chip), scaled by the roofline from the H200 to the H100; rows of its own win; without the same
// engine folder on the H200 they stay the roofline's.
TEST(KernelDbSynthetic, ExpertsTheGpusTablesLackComeFromTheSameChipsScaled) {
  TempDir dir("same-chip");
  const fs::path db = write_synthetic_db(dir.path());
  const ModelSpec& mixtral = find_model("mixtral-8x7b", "t");  // 8 experts of 14336, top 2
  std::string rows;
  for (const int64_t tokens : {1, 64, 512}) {
    rows += fmt::format("0.1.0,a,bfloat16,{},4096,14336,2,8,1,1,balanced,{}\n", tokens,
                        0.05 + 0.001 * static_cast<double>(tokens));
  }
  std::ofstream(db / "h200_sxm" / "vllm-0.1.0" / "moe_perf.csv", std::ios::app) << rows;
  const fs::path h100_engine = db / "h100_sxm" / "vllm-0.1.0";
  write_file(h100_engine / "gemm_perf.csv", "gemm_dtype,m,n,k,latency\nbfloat16,1,288,288,0.01\n");
  const GpuSpec& h100 = find_gpu("H100-SXM", "t");
  const std::vector<SeqWork> decodes(64, SeqWork{1, 500, 1});  // 64 routed tokens a layer

  KernelDbCoverage coverage;
  auto on_h100 =
      make_kernel_db_model(spec_of(db), mixtral, h100, Deployment{}, RooflineOptions{}, &coverage);
  const OperatorCoverage& experts = coverage.of(OpClass::moe_experts);
  EXPECT_EQ(experts.kind, CoverageKind::scaled) << experts.detail;
  EXPECT_NE(experts.detail.find("measured on h200_sxm (the same chip)"), std::string::npos)
      << experts.detail;
  auto on_h200 = make_kernel_db_model(spec_of(db), mixtral, h200(), Deployment{}, RooflineOptions{},
                                      &coverage);
  EXPECT_EQ(coverage.of(OpClass::moe_experts).kind, CoverageKind::table);
  MoeKey key;
  key.dtype = "bfloat16";
  key.hidden = 4096;
  key.inter = 14336;
  key.topk = 2;
  key.num_experts = 8;
  key.distribution = "balanced";
  const double ratio = KernelScaling(h100, RooflineOptions{}).moe(64, key) /
                       KernelScaling(h200(), RooflineOptions{}).moe(64, key);
  EXPECT_GT(ratio, 1.0);  // memory-bound at 64 tokens: the H100's HBM is slower
  EXPECT_NEAR(on_h100->breakdown(decodes)[OpClass::moe_experts],
              on_h200->breakdown(decodes)[OpClass::moe_experts] * ratio,
              1e-12 * on_h100->breakdown(decodes)[OpClass::moe_experts]);

  // The H100's own rows of the dtype win.
  write_file(h100_engine / "moe_perf.csv",
             "kernel_source,moe_dtype,num_tokens,hidden_size,inter_size,topk,num_experts,"
             "moe_tp_size,moe_ep_size,distribution,latency\n"
             "a,bfloat16,64,4096,14336,2,8,1,1,balanced,0.2\n");
  TempDir own_dir("same-chip-own");
  fs::copy(db, own_dir.path(), fs::copy_options::recursive);
  make_kernel_db_model(spec_of(own_dir.path()), mixtral, h100, Deployment{}, RooflineOptions{},
                       &coverage);
  EXPECT_EQ(coverage.of(OpClass::moe_experts).kind, CoverageKind::table);
  EXPECT_EQ(coverage.of(OpClass::moe_experts).detail.find("h200_sxm"), std::string::npos);

  // No vllm-0.1.0 on the H200: the roofline's, as before.
  TempDir alone_dir("same-chip-alone");
  fs::copy(db / "h100_sxm", alone_dir.path() / "h100_sxm", fs::copy_options::recursive);
  fs::remove(alone_dir.path() / "h100_sxm" / "vllm-0.1.0" / "moe_perf.csv");
  make_kernel_db_model(spec_of(alone_dir.path()), mixtral, h100, Deployment{}, RooflineOptions{},
                       &coverage);
  EXPECT_EQ(coverage.of(OpClass::moe_experts).kind, CoverageKind::roofline);
}

TEST(KernelDbSynthetic, Deterministic) {
  TempDir dir("determinism");
  const fs::path db = write_synthetic_db(dir.path());
  const std::vector<SeqWork> batch = {{300, 0, 1}, {1, 700, 1}, {1, 20, 1}, {64, 128, 0}};
  auto a = make_kernel_db_model(spec_of(db), tiny(), h200(), Deployment{});
  auto b = make_kernel_db_model(spec_of(db), tiny(), h200(), Deployment{});
  EXPECT_EQ(a->step_seconds(batch), b->step_seconds(batch));
  const KernelDbTables t1 = load_synthetic(db);
  const KernelDbTables t2 = load_synthetic(db);
  ASSERT_EQ(t1.gemm.size(), t2.gemm.size());
  for (auto i = t1.gemm.begin(), j = t2.gemm.begin(); i != t1.gemm.end(); ++i, ++j) {
    EXPECT_EQ(i->first, j->first);
    EXPECT_EQ(i->second.latencies(), j->second.latencies());
  }
}

// --- Errors ---------------------------------------------------------------------------------

TEST(KernelDbErrors, FoldersEnginesAndVersions) {
  TempDir dir("errors");
  const fs::path db = write_synthetic_db(dir.path());
  expect_input_error([&] { resolve_kernel_db_folders(spec_of(db / "nope"), h200()); },
                     {"kernel_db: dir", "is not a folder"});
  expect_input_error([&] { resolve_kernel_db_folders(spec_of(db), find_gpu("L40S", "t")); },
                     {"GPU L40S has no kernel tables", "h200_sxm/ for H200"});
  expect_input_error([&] { resolve_kernel_db_folders(spec_of(db), find_gpu("B200", "t")); },
                     {"no b200_sxm folder", "h200_sxm/ for H200"});
  expect_input_error([&] { resolve_kernel_db_folders(spec_of(db, "tgi"), h200()); },
                     {"unknown engine \"tgi\"", "vllm, sglang, trtllm"});
  expect_input_error([&] { resolve_kernel_db_folders(spec_of(db, "sglang"), h200()); },
                     {"holds no sglang tables"});
  expect_input_error([&] { resolve_kernel_db_folders(spec_of(db, "vllm", "9.9"), h200()); },
                     {"has no vllm 9.9", "0.1.0"});
  fs::create_directories(db / "h200_sxm" / "vllm-0.2.0");
  expect_input_error([&] { resolve_kernel_db_folders(spec_of(db), h200()); },
                     {"holds vllm versions 0.1.0, 0.2.0; choose one"});
  const KernelDbFolders chosen = resolve_kernel_db_folders(spec_of(db, "vllm", "0.1.0"), h200());
  EXPECT_EQ(chosen.engine_folder, "vllm-0.1.0");
}

TEST(KernelDbErrors, MalformedTablesNameTheFileAndLine) {
  TempDir dir("malformed");
  const fs::path db = write_synthetic_db(dir.path());
  const fs::path gemm = db / "h200_sxm" / "vllm-0.1.0" / "gemm_perf.csv";
  write_file(gemm, "gemm_dtype,m,n,k,latency\nbfloat16,1,64,64,0.01\nbfloat16,2,64,64,fast\n");
  expect_input_error([&] { load_synthetic(db); }, {"gemm_perf.csv:3: latency:"});
  write_file(gemm, "gemm_dtype,m,n,k,latency\nbfloat16,1,64,64\n");
  expect_input_error([&] { load_synthetic(db); },
                     {"gemm_perf.csv:2: has 4 fields, the header has 5"});
  write_file(gemm, "gemm_dtype,m,n,n,latency\n");
  expect_input_error([&] { load_synthetic(db); },
                     {"gemm_perf.csv:1: header: column n appears twice"});
  write_file(gemm, "gemm_dtype,m,n,latency\nbfloat16,1,64,0.01\n");
  expect_input_error([&] { load_synthetic(db); }, {"gemm_perf.csv: no column k"});
  write_file(gemm, "gemm_dtype,m,n,k,latency\nbfloat16,0,64,64,0.01\n");
  expect_input_error([&] { load_synthetic(db); }, {"gemm_perf.csv:2: m: must be >= 1"});
  write_file(gemm, "gemm_dtype,m,n,k,latency\nbfloat16,1,64,64,0\n");
  expect_input_error([&] { load_synthetic(db); }, {"gemm_perf.csv:2: latency: must be > 0"});
  // A column the CSV lacks may come from the manifest's constants.
  write_file(gemm, "m,n,k,latency\n1,64,64,0.01\n");
  write_file(db / "h200_sxm" / "vllm-0.1.0" / "manifest.json",
             R"({"source": "test", "tables": [{"table": "gemm_perf", "summary": )"
             R"({"file": "gemm_perf.csv", "rows": 1, "constant": {"gemm_dtype": "bfloat16"}}}]})");
  const KernelDbTables tables = load_synthetic(db);
  EXPECT_EQ(tables.gemm.begin()->first.dtype, "bfloat16");
  EXPECT_EQ(tables.source, "test");
  write_file(db / "h200_sxm" / "vllm-0.1.0" / "manifest.json", "{not json");
  expect_input_error([&] { load_synthetic(db); }, {"manifest.json: not valid JSON"});
}

}  // namespace
}  // namespace tidal::perf
