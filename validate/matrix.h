// `tidal validate --matrix FILE`: a list of validation cases run one after another, profiles
// measured once per distinct (model, tp, threads, quantization, KV dtype, block size), and one
// table of the results (matrix.md and matrix.json).
//
// FILE (docs/validation.md): {"name": ..., "defaults": {CASE KEYS}, "cases": [{"name": ...,
// CASE KEYS}, ...]}; a case's keys override the defaults. Relative trace paths resolve against
// FILE's folder. Unknown keys are InputErrors naming the JSON path.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/profile/profiler.h"
#include "validate/validation.h"

namespace tidal::validate {

struct MatrixCase {
  std::string name;
  std::string where;        // "<file>: cases[i]", for its errors
  ValidateOptions options;  // out_dir and profile_path are filled in by run_matrix
};

struct Matrix {
  std::string name;
  std::vector<MatrixCase> cases;
};

// InputError "<file>: cases[2].policy: ..." for a bad file.
Matrix load_matrix(const std::string& path);

struct MatrixResult {
  nlohmann::ordered_json json;  // matrix.json
  std::string markdown;         // matrix.md
};

// Runs every case into out_dir/<case name>/ and writes out_dir/matrix.{json,md}. Every case's
// engine config is checked first (engine::check_config): InputError "<file>: cases[i] ("name"):
// engine.scheduler...: ..." before any case runs.
MatrixResult run_matrix(const Matrix& matrix, const std::string& out_dir,
                        const profile::ProgressFn& progress);

// "\n<heading>: ..." — per target of docs/validation.md, on how many of the `cases` that carry
// `targets` (rows of matrix.json) it holds and which miss it.
std::string targets_summary(const nlohmann::ordered_json& cases, const std::string& heading);

// Writes result.json and result.markdown as out_dir/matrix.{json,md}; InputError when it cannot.
void write_matrix_files(const MatrixResult& result, const std::string& out_dir);

// The markdown table of matrix.json's rows.
std::string matrix_markdown(const nlohmann::ordered_json& matrix_json);

}  // namespace tidal::validate
