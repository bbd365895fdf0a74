// `tidal validate --matrix FILE --rounds N`: the whole matrix run N times, each round into its
// own folder with its own profiles, and one table of every case's errors over the rounds: their
// mean (the simulator's bias with the machine's drift between runs averaged out), lowest and
// highest, and on how many rounds each target held.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "validate/matrix.h"

namespace tidal::validate {

// Runs the matrix num_rounds times into out_dir/round-<r>/ (each a run_matrix folder) and writes
// out_dir/matrix.{json,md} over the rounds; with num_rounds 1, run_matrix into out_dir itself.
// InputError for num_rounds < 1.
MatrixResult run_matrix_rounds(const Matrix& matrix, const std::string& out_dir, int num_rounds,
                               const profile::ProgressFn& progress);

// matrix.json over rounds from each round's matrix.json (the same cases in the same order):
// per case, {mean, min, max} of every error column, `targets` judged on the means and
// `rounds_held` counting the rounds where each target held; `step_total_error_pct` {mean, min,
// max} (the model's step total against the measured one, %), and `at_matched_step_totals`:
// {ttft_mean_error_pct, tpot_mean_error_pct, e2e_mean_error_pct: {at_matched_pct,
// per_step_total_pct}}, each error's line against the step-total error (drift_fit.h), or null.
nlohmann::ordered_json rounds_json(const std::vector<nlohmann::ordered_json>& round_jsons);

// The markdown table of rounds_json's rows, its "Targets held" line on the means, each round's
// own line, and the table of request means at matched step totals.
std::string rounds_markdown(const nlohmann::ordered_json& rounds,
                            const std::vector<nlohmann::ordered_json>& round_jsons);

}  // namespace tidal::validate
