// Reading measured end-to-end runs (measured.csv, vllm bench serve JSON) and sorting out the rows
// tidal cannot express yet.
#include "validate/measured_runs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/input_error.h"
#include "tests/scratch_folder.h"
#include "validate/measured_id_layout.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

constexpr char kHeader[] =
    "id,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,"
    "moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,"
    "silicon_ttft_ms,silicon_tpot_ms,concurrency\n";

const std::string kScratch = "tidal_measured";

// Writes `text` to the file `name` in `dir`; returns its path.
fs::path write_file(const fs::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return dir / name;
}

// The error reading `path` gives, or "(no error)".
std::string read_error(const fs::path& path) {
  try {
    read_measured_csv(path.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string error_of(const std::string& rows) {
  const ScratchFolder scratch(kScratch, "bad_rows");
  return read_error(write_file(scratch.path(), "bad.csv", kHeader + rows));
}

TEST(MeasuredRuns, ReadsRowsAndSortsOutWhatCannotBeExpressed) {
  const ScratchFolder scratch(kScratch, "rows");
  const fs::path path = write_file(
      scratch.path(), "m.csv",
      std::string(kHeader) +
          "a,vllm,0.19.0,Qwen/Qwen3-32B,h100_sxm,fp8,agg,1024,512,fp8,,64,2,1,1,2,1,"
          "120.5,15.25,64\n"
          "b,sglang,0.5.14,deepseek-ai/DeepSeek-R1,h200_sxm,fp8,agg,1024,512,fp8_block,"
          "fp8_block,64,8,1,8,8,1,300,20,64\n"
          "c,trtllm,1.3,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,512,nvfp4,nvfp4,64,"
          "8,1,1,8,8,300,20,64\n");
  const std::vector<MeasuredRun> runs = read_measured_csv(path.string());
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].model, "Qwen/Qwen3-32B");
  EXPECT_EQ(runs[0].tp, 2);
  EXPECT_EQ(runs[0].isl, 1024);
  EXPECT_EQ(runs[0].concurrency, 64);
  EXPECT_DOUBLE_EQ(runs[0].ttft_ms, 120.5);
  EXPECT_EQ(runs[0].where, path.string() + ":2");
  EXPECT_FALSE(inexpressible_reason(runs[0]));
  // Attention data parallelism and expert parallelism are pool keys (attention_dp, ep).
  EXPECT_EQ(runs[1].attention_dp, 8);
  EXPECT_FALSE(inexpressible_reason(runs[1]));
  EXPECT_EQ(runs[2].moe_ep, 8);
  EXPECT_FALSE(inexpressible_reason(runs[2]));
  EXPECT_EQ(gpu_of_system("h200_sxm"), "H200");
  EXPECT_EQ(gpu_of_system("tpu_v5"), "");
}

TEST(MeasuredRuns, DisaggregatedRowsGiveBothSidesWorkers) {
  const std::string header =
      "id,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,"
      "moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,"
      "prefill_batch_size,prefill_num_workers,prefill_tp_size,prefill_pp_size,"
      "prefill_attention_dp_size,prefill_moe_tp_size,prefill_moe_ep_size,decode_batch_size,"
      "decode_num_workers,decode_tp_size,decode_pp_size,decode_attention_dp_size,"
      "decode_moe_tp_size,decode_moe_ep_size,silicon_ttft_ms,silicon_tpot_ms,concurrency\n";
  const ScratchFolder scratch(kScratch, "disaggregated");
  const fs::path path =
      write_file(scratch.path(), "d.csv",
                 header +
                     "d,trtllm,1.1,deepseek-ai/DeepSeek-R1,gb200,fp4,disagg,1024,1024,nvfp4,"
                     "nvfp4,,,,,,,1,2,1,1,4,1,4,8,3,8,1,1,1,8,195.5,5.3,16\n");
  const std::vector<MeasuredRun> runs = read_measured_csv(path.string());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].prefill.num_workers, 2);
  EXPECT_EQ(runs[0].prefill.attention_dp, 4);
  EXPECT_EQ(runs[0].prefill.moe_ep, 4);
  EXPECT_EQ(runs[0].decode.num_workers, 3);
  EXPECT_EQ(runs[0].decode.tp, 8);
  EXPECT_EQ(runs[0].decode.moe_ep, 8);
  // Batch sizes are per attention rank.
  EXPECT_EQ(runs[0].prefill.max_batch_size, 1);
  EXPECT_EQ(runs[0].decode.max_batch_size, 8);
  EXPECT_FALSE(inexpressible_reason(runs[0]));
  // A row leaving a batch size empty caps nothing; a bad one names its column.
  const fs::path open_batch =
      write_file(scratch.path(), "o.csv",
                 header +
                     "o,trtllm,1.1,deepseek-ai/DeepSeek-R1,gb200,fp4,disagg,1024,1024,nvfp4,"
                     "nvfp4,,,,,,,,2,1,1,4,1,4,,3,8,1,1,1,8,195.5,5.3,16\n");
  const std::vector<MeasuredRun> open_runs = read_measured_csv(open_batch.string());
  EXPECT_EQ(open_runs[0].prefill.max_batch_size, 0);
  EXPECT_EQ(open_runs[0].decode.max_batch_size, 0);
  const fs::path zero_batch =
      write_file(scratch.path(), "z.csv",
                 header +
                     "z,trtllm,1.1,deepseek-ai/DeepSeek-R1,gb200,fp4,disagg,1024,1024,nvfp4,"
                     "nvfp4,,,,,,,0,2,1,1,4,1,4,8,3,8,1,1,1,8,195.5,5.3,16\n");
  EXPECT_EQ(read_error(zero_batch),
            zero_batch.string() + ":2: prefill_batch_size: must be >= 1 (got 0)");
  // Without the workers' columns a disaggregated row cannot be read.
  const fs::path bare = write_file(
      scratch.path(), "bare.csv",
      std::string(kHeader) +
          "e,vllm,0.19.0,Qwen/Qwen3-32B,h100_sxm,fp8,disagg,1024,512,fp8,,,,,,,,1,2,3\n");
  EXPECT_EQ(read_error(bare),
            bare.string() + ":2: prefill_num_workers: missing column (mode disagg needs it)");
}

TEST(MeasuredRuns, ColumnsMultipliedByTheirExpertParallelismAreDividedBack) {
  const ScratchFolder scratch(kScratch, "ids");
  const fs::path path = write_file(
      scratch.path(), "ids.csv",
      std::string(kHeader) +
          // tp_size 64 = 8 x 8, moe 8 x 8: the id's 8 GPUs with experts over 8.
          "x_c4_tp8_ep8_920,trtllm,1.1,deepseek-ai/DeepSeek-R1,b200_sxm,fp8,agg,1024,1024,,,"
          "4,64,1,1,8,8,300,7,4\n"
          // attention data parallelism 16 = 4 x 4: 4 ranks.
          "y_c8_tp4_ep4_1,trtllm,1.1,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,1024,,,"
          "8,1,1,16,4,4,300,7,8\n"
          // As the id says already: untouched.
          "z_c4_tp8_ep8_2,trtllm,1.1,deepseek-ai/DeepSeek-R1,b200_sxm,fp8,agg,1024,1024,,,"
          "4,1,1,8,1,8,300,7,4\n"
          // tp and attention DP both above 1: which one was multiplied is unclear, untouched.
          "w_c4_tp4_ep4_3,vllm,0.19,MiniMaxAI/MiniMax-M2.5,h100_sxm,fp8,agg,1024,1024,,,"
          "4,4,1,4,1,16,300,7,4\n"
          // No layout in the id, tp_size 64 = 8 x 8 with moe 8 x 8: the square case, 8 GPUs.
          "v_cfg181,trtllm,1.1,deepseek-ai/"
          "DeepSeek-R1,b200_sxm,fp8,agg,1024,1024,,,4,64,1,1,8,8,300,7,4\n"
          // The same with attention data parallelism 64: 8 ranks.
          "u_cfg191,trtllm,1.2,deepseek-ai/"
          "DeepSeek-R1,b200_sxm,fp4,agg,1024,1024,,,4,1,1,64,8,8,300,7,256\n"
          // The id names 4 GPUs and no expert parallelism: the columns agree, untouched.
          "t_c16_tp4_epnone_16,trtllm,1.1,Qwen/"
          "Qwen3-235B-A22B-FP8,h100_sxm,fp8,agg,128,128,,,16,4,1,1,2,2,300,7,16\n"
          // No layout in the id and not square (tp 16, moe 8 x 2): untouched.
          "s_cfg9,trtllm,1.1,deepseek-ai/"
          "DeepSeek-R1,b200_sxm,fp8,agg,1024,1024,,,4,16,1,1,8,2,300,7,4\n");
  const std::vector<MeasuredRun> runs = read_measured_csv(path.string());
  ASSERT_EQ(runs.size(), 8u);
  for (size_t i : {0u, 1u, 4u, 5u}) EXPECT_TRUE(runs[i].layout_unmultiplied) << runs[i].id;
  EXPECT_EQ(runs[0].tp, 8);
  EXPECT_EQ(runs[0].attention_dp, 1);
  EXPECT_EQ(runs[0].moe_tp, 1);
  EXPECT_EQ(runs[0].moe_ep, 8);
  EXPECT_EQ(runs[1].tp, 1);
  EXPECT_EQ(runs[1].attention_dp, 4);
  EXPECT_EQ(runs[1].moe_tp, 1);
  EXPECT_EQ(runs[1].moe_ep, 4);
  EXPECT_EQ(runs[4].tp, 8);
  EXPECT_EQ(runs[4].attention_dp, 1);
  EXPECT_EQ(runs[4].moe_tp, 1);
  EXPECT_EQ(runs[4].moe_ep, 8);
  EXPECT_EQ(runs[5].tp, 1);
  EXPECT_EQ(runs[5].attention_dp, 8);
  EXPECT_EQ(runs[5].moe_tp, 1);
  EXPECT_EQ(runs[5].moe_ep, 8);
  for (size_t i : {2u, 3u, 6u, 7u}) EXPECT_FALSE(runs[i].layout_unmultiplied) << runs[i].id;
  EXPECT_EQ(runs[3].tp, 4);
  EXPECT_EQ(runs[3].attention_dp, 4);
  EXPECT_EQ(runs[3].moe_ep, 16);
  EXPECT_EQ(runs[6].tp, 4);
  EXPECT_EQ(runs[6].moe_tp, 2);
  EXPECT_EQ(runs[7].tp, 16);
  EXPECT_EQ(runs[7].moe_tp, 8);
}

TEST(MeasuredRuns, IdLayoutTags) {
  const std::optional<IdLayout> a = id_layout("2026_03_25_gpt_oss_120b_c8_tp8_0_ep8_0_1239");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->num_gpus, 8);
  EXPECT_EQ(a->ep, 8);
  EXPECT_FALSE(id_layout("qwen_tp2"));
  EXPECT_FALSE(id_layout("a_tpx_ep2"));
  EXPECT_FALSE(id_layout("a_tp2x_ep2"));
}

TEST(MeasuredRuns, BadRowsNameFileLineAndColumn) {
  EXPECT_NE(error_of("a,vllm,0.19.0,m,h100_sxm,fp8,agg,zero,512,,,1,1,1,1,1,1,1,1,1\n")
                .find("bad.csv:2: isl:"),
            std::string::npos);
  EXPECT_NE(error_of("a,vllm,0.19.0,m,h100_sxm,fp8,agg,10,512,,,1,1,1,1,1,1,-3,1,1\n")
                .find("bad.csv:2: silicon_ttft_ms: must be > 0"),
            std::string::npos);
  EXPECT_NE(error_of("a,vllm,0.19.0,m,h100_sxm,fp8,mixed,10,512,,,1,1,1,1,1,1,1,1,1\n")
                .find("bad.csv:2: mode:"),
            std::string::npos);
  EXPECT_NE(error_of("a,vllm\n").find("bad.csv:2:"), std::string::npos);
  EXPECT_NE(error_of("").find("no measured rows"), std::string::npos);
}

TEST(MeasuredRuns, VllmBenchServeResult) {
  const ScratchFolder scratch(kScratch, "bench");
  const fs::path path =
      write_file(scratch.path(), "bench.json", R"({"backend": "vllm", "max_concurrency": 32,
      "mean_ttft_ms": 80.0, "mean_tpot_ms": 9.5, "random_input_len": 2048,
      "random_output_len": 256, "completed": 320})");
  MeasuredRun defaults;
  defaults.engine = "vllm";
  defaults.model = "Qwen/Qwen3-32B";
  defaults.system = "h100_sxm";
  defaults.tp = 2;
  const std::vector<MeasuredRun> runs = read_vllm_bench_json(path.string(), defaults);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].concurrency, 32);
  EXPECT_EQ(runs[0].isl, 2048);
  EXPECT_EQ(runs[0].osl, 256);
  EXPECT_EQ(runs[0].tp, 2);
  EXPECT_DOUBLE_EQ(runs[0].tpot_ms, 9.5);
  const fs::path bad = write_file(scratch.path(), "bad.json", R"({"max_concurrency": 32})");
  EXPECT_THROW(read_vllm_bench_json(bad.string(), defaults), InputError);
}

TEST(MeasuredRuns, TheSharedSiliconRuns) {
  const std::string path = std::string(TIDAL_SHARED_DIR) + "/benchmarks/silicon/measured.csv";
  if (!fs::exists(path)) GTEST_SKIP() << "no " << path;
  const std::vector<MeasuredRun> runs = read_measured_csv(path);
  EXPECT_EQ(runs.size(), 4536u);
  int64_t num_expressible = 0;
  for (const MeasuredRun& run : runs) num_expressible += inexpressible_reason(run) ? 0 : 1;
  EXPECT_GT(num_expressible, 1000);
  EXPECT_LT(num_expressible, 4536);
}

}  // namespace
}  // namespace tidal::validate
