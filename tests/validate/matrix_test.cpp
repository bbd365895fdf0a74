// Matrix files: defaults, overrides, path resolution and exact error messages; and the
// repository's own matrix loads with every case the issue lists.
#include "validate/matrix.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "tests/scratch_folder.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

const std::string kScratch = "tidal_matrix_test";

std::string write_matrix(const fs::path& dir, const std::string& name, const std::string& text) {
  const fs::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string error_of(const std::string& path) {
  try {
    load_matrix(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Matrix, DefaultsAndOverrides) {
  const ScratchFolder scratch(kScratch, "defaults");
  const std::string path = write_matrix(scratch.path(), "ok.json", R"({
    "name": "m",
    "defaults": {"model": "tiny", "threads": 1, "max_num_seqs": 8, "time_scale": 0.5},
    "cases": [
      {"name": "a", "trace": "a.jsonl"},
      {"name": "b", "trace": "/abs/b.jsonl", "policy": "static", "tp": 2, "quant": "int8",
       "spec": "ngram:2", "load": 0.85, "prefix_caching": false, "repeat_engine": true}
    ]})");
  const Matrix m = load_matrix(path);
  EXPECT_EQ(m.name, "m");
  ASSERT_EQ(m.cases.size(), 2u);
  const ValidateOptions& a = m.cases[0].options;
  EXPECT_EQ(a.run.model, "tiny");
  EXPECT_EQ(a.run.trace, (fs::path(path).parent_path() / "a.jsonl").string());
  EXPECT_EQ(a.run.config.scheduler.max_num_seqs, 8);
  EXPECT_DOUBLE_EQ(a.run.replay.time_scale, 0.5);
  EXPECT_FALSE(a.load.has_value());
  const ValidateOptions& b = m.cases[1].options;
  EXPECT_EQ(b.run.trace, "/abs/b.jsonl");
  EXPECT_EQ(b.run.config.scheduler.policy, "static");
  EXPECT_EQ(b.run.config.tp, 2);
  EXPECT_EQ(b.run.config.quant.format, kernels::WeightFormat::int8);
  EXPECT_EQ(b.run.config.spec.method, engine::SpecMethod::ngram);
  EXPECT_EQ(b.run.config.spec.num_spec_tokens, 2);
  EXPECT_DOUBLE_EQ(*b.load, 0.85);
  EXPECT_FALSE(b.run.config.enable_prefix_caching);
  EXPECT_TRUE(b.repeat_engine);
  EXPECT_EQ(b.title, "b");
}

TEST(Matrix, ErrorsNameTheJsonPath) {
  const ScratchFolder scratch(kScratch, "errors");
  const std::string unknown =
      write_matrix(scratch.path(), "unknown.json",
                   R"({"cases": [{"name": "a", "trace": "t", "model": "tiny", "polcy": "x"}]})");
  EXPECT_EQ(error_of(unknown).rfind(unknown + ": cases[0].polcy: unknown key (known: name,", 0), 0u)
      << error_of(unknown);
  const std::string missing = write_matrix(scratch.path(), "missing.json",
                                           R"({"cases": [{"name": "a", "model": "tiny"}]})");
  EXPECT_EQ(error_of(missing), missing + ": cases[0].trace: missing (required)");
  const std::string type =
      write_matrix(scratch.path(), "type.json",
                   R"({"cases": [{"name": "a", "trace": "t", "model": "tiny", "tp": "2"}]})");
  EXPECT_EQ(error_of(type), type + ": cases[0].tp: must be an integer");
  const std::string dup = write_matrix(
      scratch.path(), "dup.json",
      R"({"defaults": {"trace": "t", "model": "tiny"}, "cases": [{"name": "a"}, {"name": "a"}]})");
  EXPECT_EQ(error_of(dup), dup + ": cases[1].name: \"a\" names an earlier case too");
  const std::string empty = write_matrix(scratch.path(), "empty.json", R"({"cases": []})");
  EXPECT_EQ(error_of(empty), empty + ": cases: must be a non-empty array");
  const std::string top = write_matrix(scratch.path(), "top.json", R"({"cases": [], "extra": 1})");
  EXPECT_EQ(error_of(top),
            top + ": extra: unknown key (known: name, description, defaults, cases)");
  EXPECT_EQ(error_of("/nonexistent/m.json"), "/nonexistent/m.json: cannot read the file");
}

// A case the engine would refuse fails the whole matrix before any case runs (no profile
// measured, no case folder written), naming the case.
TEST(Matrix, ABadCaseFailsBeforeAnyCaseRuns) {
  const ScratchFolder scratch(kScratch, "bad_case");
  const std::string path = write_matrix(scratch.path(), "bad.json", R"({
    "defaults": {"model": "tiny", "max_num_seqs": 4, "max_requests": 2},
    "cases": [
      {"name": "fine", "trace": "t.jsonl"},
      {"name": "short-budget", "trace": "t.jsonl", "max_batched_tokens": 256}
    ]})");
  const Matrix m = load_matrix(path);
  const fs::path out = scratch.path() / "out";
  try {
    run_matrix(m, out.string(), [](const std::string&) {});
    FAIL() << "a case below max_model_len ran";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  path + ": cases[1] (\"short-budget\"): engine.scheduler.max_num_batched_tokens: "
                         "256 is below max_model_len",
                  0),
              0u)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(out / "fine"));
  EXPECT_TRUE(!fs::exists(out / "profiles") || fs::is_empty(out / "profiles"));
}

TEST(Matrix, RepositoryMatrixCoversTheIssueCases) {
  const Matrix m = load_matrix(std::string(TIDAL_SOURCE_DIR) + "/examples/validation/matrix.json");
  bool offline = false, poisson50 = false, poisson85 = false, bursty = false, sessions = false,
       chunked = false, static_batching = false, int8 = false, tp2 = false, ngram = false;
  for (const MatrixCase& c : m.cases) {
    const engine::EngineConfig& config = c.options.run.config;
    EXPECT_TRUE(fs::exists(c.options.run.trace)) << c.options.run.trace;
    offline |= c.options.run.replay.time_scale == 0.0;
    poisson50 |= c.options.load == 0.5;
    poisson85 |= c.options.load == 0.85;
    bursty |= c.name.find("bursty") != std::string::npos;
    sessions |= c.name.find("session") != std::string::npos && config.enable_prefix_caching;
    chunked |= config.scheduler.policy == "chunked_prefill";
    static_batching |= config.scheduler.policy == "static";
    int8 |= config.quant.format == kernels::WeightFormat::int8;
    tp2 |= config.tp == 2;
    ngram |= config.spec.method == engine::SpecMethod::ngram;
  }
  EXPECT_TRUE(offline && poisson50 && poisson85 && bursty && sessions && chunked &&
              static_batching && int8 && tp2 && ngram);
}

TEST(Matrix, MarkdownRowCarriesEveryColumn) {
  const nlohmann::ordered_json rows = {{"cases",
                                        {{{"case", "tp2"},
                                          {"load", 0.5},
                                          {"num_requests", 200},
                                          {"step_median_abs_error_pct", 12.34},
                                          {"step_p90_abs_error_pct", 40.0},
                                          {"ttft_mean_error_pct", -50.0},
                                          {"ttft_p99_error_pct", -40.0},
                                          {"tpot_mean_error_pct", -10.0},
                                          {"tpot_p99_error_pct", 5.0},
                                          {"itl_mean_error_pct", -9.0},
                                          {"e2e_mean_error_pct", -30.0},
                                          {"e2e_p99_error_pct", -20.0},
                                          {"ttft_ks", 0.5},
                                          {"e2e_ks", 0.25},
                                          {"throughput_error_pct", 1.5},
                                          {"makespan_error_pct", -1.5},
                                          {"noise_ttft_mean_pct", nullptr},
                                          {"noise_e2e_mean_pct", 3.0},
                                          {"engine_cpu_share", 0.75},
                                          {"step_predicted_total_s", 0.5},
                                          {"step_measured_total_s", 0.75},
                                          {"engine_cpu_s", 0.625},
                                          {"targets",
                                           {{"step_median", false},
                                            {"step_p90", false},
                                            {"request_means", false},
                                            {"request_p99", true}}}}}}};
  const std::string md = matrix_markdown(rows);
  EXPECT_NE(md.find("| tp2 | 0.50 | 200 | 12.3% / 40.0% | -50.0 / -40.0 | -10.0 / +5.0 | -9.0 | "
                    "-30.0 / -20.0 | 0.50 / 0.25 | +1.5 | -1.5 | n/a / +3.0 | 0.75 | "
                    "0.500 / 0.750 / 0.625 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("Targets held: step median < 3% on 0 of 1 (misses: tp2); step p90 < 8% on 0 "
                    "of 1 (misses: tp2); TTFT/TPOT/E2E means within 5% on 0 of 1 (misses: tp2); "
                    "their p99 within 10% on 1 of 1\n"),
            std::string::npos)
      << md;
}

}  // namespace
}  // namespace tidal::validate
