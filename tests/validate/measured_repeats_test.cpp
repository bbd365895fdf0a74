// One measured run written as several rows, and checkpoints of one architecture held out together.
#include "validate/measured_repeats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/input_error.h"
#include "tests/scratch_folder.h"
#include "validate/calibrate_command.h"
#include "validate/silicon_rows.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

const std::string kScratch = "tidal_measured_repeats";

MeasuredRun run_of(const std::string& id, const std::string& model) {
  MeasuredRun run;
  run.id = id;
  run.model = model;
  run.engine = "trtllm";
  run.system = "b200_sxm";
  run.mode = "agg";
  run.isl = 1024;
  run.osl = 8192;
  run.concurrency = 256;
  run.ttft_ms = 906.6183994952098;
  run.tpot_ms = 21.374843718536397;
  return run;
}

// The same figures under two ids and two checkpoint names (as measured.csv's
// "dsr1_b200_trtllm_fp4_agg_1024x8192_c256_cfg191" and
// "2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_agg_1024x8192_c256_tp8_0_ep8_0_1080" are) are one
// run; any difference in what ran or what was measured makes another.
TEST(MeasuredRepeats, OneRunUnderTwoIdsIsOneRun) {
  const MeasuredRun a = run_of("dsr1_cfg191", "deepseek-ai/DeepSeek-V3");
  const MeasuredRun b =
      run_of("2026_03_25_deepseek_r1_tp8_0_ep8_0_1080", "deepseek-ai/DeepSeek-R1");
  EXPECT_EQ(run_identity(a), run_identity(b));

  MeasuredRun c = b;
  c.ttft_ms = std::nextafter(c.ttft_ms, 1e9);  // differs in the last digit
  EXPECT_NE(run_identity(a), run_identity(c));
  c = b;
  c.concurrency = 128;
  EXPECT_NE(run_identity(a), run_identity(c));
  c = b;
  c.engine = "sglang";
  EXPECT_NE(run_identity(a), run_identity(c));
  c = b;
  c.system = "h200_sxm";
  EXPECT_NE(run_identity(a), run_identity(c));
  c = b;
  c.osl = 1024;
  EXPECT_NE(run_identity(a), run_identity(c));
}

// Two checkpoints of one shape (as DeepSeek-V3 and DeepSeek-R1 are) share an architecture; a
// change in any width or in the experts makes another.
TEST(MeasuredRepeats, CheckpointsOfOneShapeShareAnArchitecture) {
  const ScratchFolder scratch(kScratch, "shapes");
  const fs::path& dir = scratch.path();
  const auto write = [&](const std::string& name, int64_t num_experts, int64_t intermediate) {
    std::ofstream(dir / (name + "_config.json"))
        << R"({"model_type": "mixtral", "hidden_size": 2048, "num_hidden_layers": 16,
        "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": )"
        << intermediate << R"(, "num_local_experts": )" << num_experts
        << R"(, "num_experts_per_tok": 2, "vocab_size": 32000,
        "max_position_embeddings": 8192, "rms_norm_eps": 1e-5})";
  };
  write("test--base", 8, 4096);
  write("test--reasoner", 8, 4096);
  write("test--more-experts", 16, 4096);
  write("test--wider", 8, 8192);
  SiliconOptions options;
  options.configs_dir = dir.string();
  const auto architecture = [&](const std::string& model) {
    MeasuredRun run = run_of("row", model);
    run.system = "h100_sxm";
    run.isl = 512;
    run.osl = 64;
    run.concurrency = 4;
    run.where = "rows.csv:2";
    std::string reason;
    const std::optional<PreparedRow> row = prepare_row(run, options, &reason);
    EXPECT_TRUE(row) << reason;
    return row ? row->architecture : std::string();
  };
  const std::string base = architecture("test/base");
  EXPECT_FALSE(base.empty());
  EXPECT_EQ(base, architecture("test/reasoner"));
  EXPECT_NE(base, architecture("test/more-experts"));
  EXPECT_NE(base, architecture("test/wider"));
}

// measured.csv's columns, as far as a row of an aggregated run needs them.
const char* const kMeasuredHeader =
    "id,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,"
    "moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,"
    "silicon_ttft_ms,silicon_tpot_ms,concurrency\n";

// `tidal calibrate` on `dir`/measured.csv with the configs in `dir`, two requests per client.
CalibrateCommand command_in(const fs::path& dir) {
  CalibrateCommand command;
  command.measured = (dir / "measured.csv").string();
  command.out = (dir / "calibration.json").string();
  command.silicon.configs_dir = dir.string();
  command.silicon.requests_per_client = 2;
  return command;
}

// `tidal calibrate` fits each measured run once: a run written as two rows (two ids, two
// checkpoint names of one shape) enters the fit once and the other row is counted as left out.
TEST(MeasuredRepeats, CalibrateFitsARepeatedRunOnce) {
  const ScratchFolder scratch(kScratch, "cal");
  const fs::path& dir = scratch.path();
  for (const char* name : {"test--small-llama", "test--small-llama-chat"}) {
    std::ofstream(dir / (std::string(name) + "_config.json"))
        << R"({"model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 16,
        "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 8192,
        "vocab_size": 32000, "max_position_embeddings": 8192, "rms_norm_eps": 1e-5})";
  }
  std::ofstream(dir / "measured.csv")
      << kMeasuredHeader
      << "a_cfg1,vllm,0.19,test/small-llama,h100_sxm,bf16,agg,512,16,,,2,1,1,1,1,1,"
         "31.25,4.5,2\n"
      << "b_tp1_7,vllm,0.19,test/small-llama-chat,h100_sxm,bf16,agg,512,16,,,2,1,1,1,1,1,"
         "31.25,4.5,2\n";
  CalibrateCommand command = command_in(dir);
  command.fit.max_iterations = 1;
  std::ostringstream log;
  std::ostringstream progress;
  const perf::CalibrationFile file = run_calibrate(command, log, &progress);
  EXPECT_EQ(progress.str().find("calibrate: 1/1 done: fit of vllm on H100-SXM (1 rows), "), 0u)
      << progress.str();
  ASSERT_EQ(file.groups.size(), 1u);
  EXPECT_EQ(file.groups[0].num_rows, 1);
  EXPECT_NE(log.str().find("1 of 2 rows used"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("1  the same measured run as an earlier row"), std::string::npos)
      << log.str();
}

// A file none of whose rows tidal can express is one error that says why each was left out.
TEST(MeasuredRepeats, CalibrateNamesWhyNoRowIsExpressible) {
  const ScratchFolder scratch(kScratch, "none");
  const fs::path& dir = scratch.path();
  std::ofstream(dir / "measured.csv")
      << kMeasuredHeader
      << "a_cfg1,vllm,0.19,test/absent-model,h100_sxm,bf16,agg,512,16,,,2,1,1,1,1,1,"
         "31.25,4.5,2\n"
      << "b_cfg2,vllm,0.19,test/absent-model,h100_sxm,bf16,agg,512,16,,,2,1,1,1,1,1,"
         "31.25,4.5,\n";
  const CalibrateCommand command = command_in(dir);
  std::ostringstream log;
  try {
    run_calibrate(command, log, nullptr);
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("measured.csv: no row tidal can express (2 read; left out: 1 x "),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("1 x no concurrency given"), std::string::npos) << what;
    EXPECT_NE(what.find("1 x no config test--absent-model_config.json"), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(dir / "calibration.json"));
}

}  // namespace
}  // namespace tidal::validate
