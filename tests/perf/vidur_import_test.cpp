// Importing Vidur's public profiling CSVs (read from ../shared/profiles, never copied).
#include <gtest/gtest.h>

#include <filesystem>

#include "base/input_error.h"
#include "perf/profiled_model.h"
#include "perf/vidur_import.h"
#include "tests/scratch_folder.h"

namespace tidal::perf {
namespace {

const std::string kVidur = std::string(TIDAL_SHARED_DIR) + "/profiles/vidur";

TEST(VidurImport, H100Llama2_70bTp4ReadsTheRightRows) {
  const Profile p = import_vidur(kVidur, "h100", "Llama-2-70b-hf", 4);
  EXPECT_EQ(p.tp, 4);
  EXPECT_EQ(p.model.name, "meta-llama/Llama-2-70b-hf");
  EXPECT_EQ(p.model.hidden, 8192);
  EXPECT_EQ(p.model.num_heads, 64);
  EXPECT_EQ(p.model.num_kv_heads, 8);
  EXPECT_EQ(p.model.intermediate, 28672);
  EXPECT_TRUE(p.model.gated_mlp);
  const OperatorTable& qkv = p.operators.at(OpClass::qkv_proj);
  ASSERT_EQ(qkv.num_tokens.size(), 259u);  // 261 rows, 2048 and 4096 measured twice
  EXPECT_EQ(qkv.num_tokens.front(), 1);
  EXPECT_EQ(qkv.num_tokens.back(), 4096);
  // mlp.csv, TP 4, num_tokens 512: attn_pre_proj median 0.046 ms, add median 0.007 ms.
  const auto at_512 = static_cast<std::size_t>(
      std::find(qkv.num_tokens.begin(), qkv.num_tokens.end(), 512) - qkv.num_tokens.begin());
  EXPECT_DOUBLE_EQ(qkv.seconds[at_512], 0.046 * 1e-3);
  EXPECT_DOUBLE_EQ(p.operators.at(OpClass::residual_add).seconds[at_512], 2 * 0.007 * 1e-3);
  EXPECT_DOUBLE_EQ(p.operators.at(OpClass::mlp_up_gate).seconds[at_512], 0.181 * 1e-3);
  EXPECT_EQ(p.operators.at(OpClass::embedding).scope, OpScope::step);
  EXPECT_EQ(p.operators.at(OpClass::lm_head).source, TimeSource::roofline);
  EXPECT_EQ(p.attention_source, TimeSource::roofline);
  EXPECT_EQ(p.allreduce.source, TimeSource::measured);
  EXPECT_EQ(p.allreduce.bytes.front(), 2048 * 2.0);
  EXPECT_EQ(p.cpu_overhead.source, TimeSource::measured);  // from the A40 node's host
  EXPECT_EQ(p.cpu_overhead.num_seqs.front(), 8);
  EXPECT_NE(p.provenance.source.find("legacy_oss_release_6555c85/a40/cpu_overheads.csv"),
            std::string::npos);
  EXPECT_EQ(p.provenance.source.find(TIDAL_SHARED_DIR), std::string::npos);  // relative paths
}

TEST(VidurImport, A100Tp2UsesTheMeasuredAttentionTable) {
  const Profile p = import_vidur(kVidur, "a100", "Llama-2-70b-hf", 2);
  ASSERT_EQ(p.attention_source, TimeSource::measured);
  EXPECT_EQ(p.attention.decode_batch_sizes.size(), 128u);
  EXPECT_EQ(p.attention.prefill_context_tokens.front(), 0);
  EXPECT_EQ(p.attention.prefill_chunk_tokens.front(), 64);
  // First row of attention.csv: decode, batch 1, kv 32: 0.015 + 0.0 + 0.001 ms.
  EXPECT_DOUBLE_EQ(p.attention.decode_seconds[0], (0.015 + 0.0 + 0.001) * 1e-3);
  const auto model = make_profiled_model(
      p, find_model("llama-2-70b", "t"), find_gpu("A100-80GB", "t"),
      [] {
        Deployment d;
        d.tp = 2;
        return d;
      }(),
      "test");
  const std::vector<SeqWork> decode(16, SeqWork{1, 1500});
  EXPECT_GT(model->breakdown(decode)[OpClass::attention_decode], 0.0);
}

TEST(VidurImport, RoundTripsThroughJson) {
  const Profile p = import_vidur(kVidur, "h100", "Llama-2-70b-hf", 8);
  const ScratchFolder scratch("tidal_perf_vidur", "h100_l70_tp8");
  const std::string path = (scratch.path() / "profile.json").string();
  save_profile(p, path);
  EXPECT_EQ(load_profile(path), p);
}

TEST(VidurImport, PredictionsAreOfTheRightSize) {
  const Profile p = import_vidur(kVidur, "h100", "Llama-2-70b-hf", 4);
  Deployment d;
  d.tp = 4;
  const auto model =
      make_profiled_model(p, find_model("llama-2-70b", "t"), find_gpu("h100", "t"), d, "test");
  const std::vector<SeqWork> decode = {{1, 1500}};
  const double step = model->step_seconds(decode);
  EXPECT_GT(step, 5e-3);  // 35 GB of weights per GPU cannot stream in under ~10 ms
  EXPECT_LT(step, 60e-3);
  const std::vector<SeqWork> prefill = {{1500, 0}};
  EXPECT_GT(model->step_seconds(prefill), step);
}

TEST(VidurImport, ErrorsNameTheProblem) {
  try {
    import_vidur(kVidur, "h100", "Llama-2-70b-hf", 3);
    FAIL();
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("no rows with num_tensor_parallel_workers == 3 (available: 1, 2, 4, 8)"),
              std::string::npos)
        << message;
  }
  try {
    import_vidur(kVidur, "h100", "Meta-Llama-3-8B", 1);  // profiled on A100 only
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no model folder \"Meta-Llama-3-8B\"; available: "),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(import_vidur(kVidur, "v100", "Llama-2-70b-hf", 1), InputError);
}

}  // namespace
}  // namespace tidal::perf
