#include "validate/matrix_rounds.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "base/input_error.h"
#include "validate/drift_fit.h"
#include "validate/validation_json.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

// The error columns of a matrix.json row that rounds are summarized over.
constexpr std::array<const char*, 10> kErrorColumns{
    "step_median_abs_error_pct", "step_p90_abs_error_pct", "ttft_mean_error_pct",
    "tpot_mean_error_pct",       "e2e_mean_error_pct",     "ttft_p99_error_pct",
    "tpot_p99_error_pct",        "e2e_p99_error_pct",      "noise_ttft_mean_pct",
    "noise_e2e_mean_pct"};
constexpr std::array<const char*, 4> kTargets{"step_median", "step_p90", "request_means",
                                              "request_p99"};

// The request-mean errors whose line against the step-total error each case gets.
constexpr std::array<const char*, 3> kDriftColumns{"ttft_mean_error_pct", "tpot_mean_error_pct",
                                                   "e2e_mean_error_pct"};

// {mean, min, max} of one value per round (non-empty).
nlohmann::ordered_json stats_of(const std::vector<double>& values) {
  double sum = 0.0;
  for (const double x : values) sum += x;
  const auto [lowest, highest] = std::minmax_element(values.begin(), values.end());
  return {{"mean", sum / static_cast<double>(values.size())}, {"min", *lowest}, {"max", *highest}};
}

// One column's value in every round; empty when a round has none (no repeat run).
std::vector<double> column_values(const std::vector<nlohmann::ordered_json>& round_jsons,
                                  size_t case_index, const char* column) {
  std::vector<double> values;  // [num rounds]
  for (const nlohmann::ordered_json& round : round_jsons) {
    const nlohmann::ordered_json& row = round["cases"][case_index];
    if (!row.contains(column) || row[column].is_null()) return {};
    values.push_back(row[column].get<double>());
  }
  return values;
}

nlohmann::ordered_json column_stats(const std::vector<nlohmann::ordered_json>& round_jsons,
                                    size_t case_index, const char* column) {
  const std::vector<double> values = column_values(round_jsons, case_index, column);
  return values.empty() ? nlohmann::ordered_json() : stats_of(values);
}

// The model's step total against the measured one over the engine's steps, % per round; empty
// when a round lacks either total or measured none.
std::vector<double> step_total_errors(const std::vector<nlohmann::ordered_json>& round_jsons,
                                      size_t case_index) {
  const std::vector<double> predicted =
      column_values(round_jsons, case_index, "step_predicted_total_s");
  const std::vector<double> measured =
      column_values(round_jsons, case_index, "step_measured_total_s");
  if (predicted.empty() || measured.empty()) return {};
  std::vector<double> errors;  // [num rounds]
  for (size_t r = 0; r < measured.size(); ++r) {
    if (!(measured[r] > 0.0)) return {};
    errors.push_back(100.0 * (predicted[r] - measured[r]) / measured[r]);
  }
  return errors;
}

// {column: {at_matched_pct, per_step_total_pct}} for kDriftColumns; null without a line.
nlohmann::ordered_json drift_json(const std::vector<nlohmann::ordered_json>& round_jsons,
                                  size_t case_index, const std::vector<double>& step_totals) {
  if (step_totals.empty()) return nullptr;
  nlohmann::ordered_json lines;
  for (const char* column : kDriftColumns) {
    const std::vector<double> errors = column_values(round_jsons, case_index, column);
    if (errors.empty()) return nullptr;
    const std::optional<DriftLine> line = fit_drift_line(step_totals, errors);
    if (!line) return nullptr;
    lines[column] = {{"at_matched_pct", line->at_matched_pct},
                     {"per_step_total_pct", line->per_step_total_pct}};
  }
  return lines;
}

double mean_of(const nlohmann::ordered_json& row, const char* column) {
  return row[column]["mean"].get<double>();
}

bool all_within(const nlohmann::ordered_json& row, std::initializer_list<const char*> columns,
                double target_pct) {
  return std::all_of(columns.begin(), columns.end(),
                     [&](const char* c) { return std::fabs(mean_of(row, c)) <= target_pct; });
}

std::string cell(const nlohmann::ordered_json& stats) {
  if (stats.is_null()) return "n/a";
  return fmt::format("{:+.1f} ({:+.1f}..{:+.1f})", stats["mean"].get<double>(),
                     stats["min"].get<double>(), stats["max"].get<double>());
}

// The table of each case's step-total error and request means at matched step totals, and how
// many of the cases with a line hold the means target there.
std::string drift_markdown(const nlohmann::ordered_json& rows) {
  std::string out = fmt::format(
      "\nRequest means at matched step totals: a least-squares line through the rounds of each "
      "error against the round's step-total error (the model's total over the engine's own "
      "steps against their measured total, which moves with the machine's speed between the "
      "profile and the replay); its value at 0 is the simulator's error without that drift, its "
      "slope how far one % of it carries (n/a: fewer than {} rounds, or step totals within {} "
      "points of each other).\n\n"
      "| case | step total | TTFT mean at 0 | TPOT mean at 0 | E2E mean at 0 | TPOT per % of "
      "step total |\n"
      "|---|---|---|---|---|---|\n",
      kMinDriftRounds, kMinStepTotalSpreadPct);
  int num_lines = 0;
  int num_held = 0;
  std::string misses;
  for (const auto& r : rows) {
    const nlohmann::ordered_json& lines = r["at_matched_step_totals"];
    const auto at_zero = [&](const char* column) {
      return lines.is_null()
                 ? std::string("n/a")
                 : fmt::format("{:+.1f}", lines[column]["at_matched_pct"].get<double>());
    };
    out += fmt::format(
        "| {} | {} | {} | {} | {} | {} |\n", r["case"].get<std::string>(),
        cell(r["step_total_error_pct"]), at_zero("ttft_mean_error_pct"),
        at_zero("tpot_mean_error_pct"), at_zero("e2e_mean_error_pct"),
        lines.is_null()
            ? std::string("n/a")
            : fmt::format("{:.2f}",
                          lines["tpot_mean_error_pct"]["per_step_total_pct"].get<double>()));
    if (lines.is_null()) continue;
    ++num_lines;
    const bool held = std::all_of(kDriftColumns.begin(), kDriftColumns.end(), [&](const char* c) {
      return std::fabs(lines[c]["at_matched_pct"].get<double>()) <= kMeanTargetPct;
    });
    if (held) {
      ++num_held;
    } else {
      misses += fmt::format("{}{}", misses.empty() ? "" : ", ", r["case"].get<std::string>());
    }
  }
  out += fmt::format("\nTTFT/TPOT/E2E means within {}% at matched step totals on {} of {}{}\n",
                     kMeanTargetPct, num_held, num_lines,
                     misses.empty() ? "" : " (misses: " + misses + ")");
  return out;
}

}  // namespace

nlohmann::ordered_json rounds_json(const std::vector<nlohmann::ordered_json>& round_jsons) {
  if (round_jsons.empty()) throw std::logic_error("rounds_json: no rounds");
  const nlohmann::ordered_json& first = round_jsons.front();
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (size_t i = 0; i < first["cases"].size(); ++i) {
    const nlohmann::ordered_json& c = first["cases"][i];
    nlohmann::ordered_json row = {
        {"case", c["case"]}, {"load", c["load"]}, {"num_requests", c["num_requests"]}};
    for (const nlohmann::ordered_json& round : round_jsons) {
      if (round["cases"].size() != first["cases"].size() ||
          round["cases"][i]["case"] != c["case"]) {
        throw std::logic_error("rounds_json: rounds hold different cases");
      }
    }
    for (const char* column : kErrorColumns) row[column] = column_stats(round_jsons, i, column);
    const std::vector<double> step_totals = step_total_errors(round_jsons, i);
    row["step_total_error_pct"] =
        step_totals.empty() ? nlohmann::ordered_json() : stats_of(step_totals);
    row["at_matched_step_totals"] = drift_json(round_jsons, i, step_totals);
    row["targets"] = {
        {"step_median", mean_of(row, "step_median_abs_error_pct") < kStepMedianTargetPct},
        {"step_p90", mean_of(row, "step_p90_abs_error_pct") < kStepP90TargetPct},
        {"request_means",
         all_within(row, {"ttft_mean_error_pct", "tpot_mean_error_pct", "e2e_mean_error_pct"},
                    kMeanTargetPct)},
        {"request_p99",
         all_within(row, {"ttft_p99_error_pct", "tpot_p99_error_pct", "e2e_p99_error_pct"},
                    kTailTargetPct)}};
    nlohmann::ordered_json held;
    for (const char* target : kTargets) {
      int num_held = 0;
      for (const nlohmann::ordered_json& round : round_jsons) {
        num_held += round["cases"][i]["targets"][target].get<bool>() ? 1 : 0;
      }
      held[target] = num_held;
    }
    row["rounds_held"] = held;
    rows.push_back(row);
  }
  return {{"kind", "tidal-validation-matrix-rounds"},
          {"name", first["name"]},
          {"num_rounds", round_jsons.size()},
          {"cases", rows}};
}

std::string rounds_markdown(const nlohmann::ordered_json& rounds,
                            const std::vector<nlohmann::ordered_json>& round_jsons) {
  const size_t num_rounds = round_jsons.size();
  std::string out = fmt::format(
      "Over {} rounds: mean (lowest..highest) of each error.\n\n"
      "| case | load | step \\|err\\| p50 | step \\|err\\| p90 | TTFT mean | TPOT mean | E2E mean "
      "| "
      "TTFT p99 | TPOT p99 | E2E p99 | engine noise TTFT / E2E mean | rounds held: step p50 / "
      "p90 / means / p99 |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n",
      num_rounds);
  for (const auto& r : rounds["cases"]) {
    const std::string load =
        r["load"].is_null() ? std::string("-") : fmt::format("{:.2f}", r["load"].get<double>());
    const nlohmann::ordered_json& held = r["rounds_held"];
    out += fmt::format(
        "| {} | {} | {:.1f}% | {:.1f}% | {} | {} | {} | {} | {} | {} | {} / {} | {} / {} / {} / {} "
        "of {} |\n",
        r["case"].get<std::string>(), load, mean_of(r, "step_median_abs_error_pct"),
        mean_of(r, "step_p90_abs_error_pct"), cell(r["ttft_mean_error_pct"]),
        cell(r["tpot_mean_error_pct"]), cell(r["e2e_mean_error_pct"]),
        cell(r["ttft_p99_error_pct"]), cell(r["tpot_p99_error_pct"]), cell(r["e2e_p99_error_pct"]),
        cell(r["noise_ttft_mean_pct"]), cell(r["noise_e2e_mean_pct"]),
        held["step_median"].get<int>(), held["step_p90"].get<int>(),
        held["request_means"].get<int>(), held["request_p99"].get<int>(), num_rounds);
  }
  out += targets_summary(rounds["cases"],
                         fmt::format("Targets held by the means over {} rounds", num_rounds));
  for (size_t r = 0; r < num_rounds; ++r) {
    out += targets_summary(round_jsons[r]["cases"], fmt::format("Round {}", r + 1));
  }
  out += drift_markdown(rounds["cases"]);
  out +=
      "\nErrors are the simulator's signed % error against the engine ((sim - engine) / "
      "engine), step |err| per engine step; each round has its own profiles, engine runs and "
      "table (round-<r>/matrix.md).\n";
  return out;
}

MatrixResult run_matrix_rounds(const Matrix& matrix, const std::string& out_dir, int num_rounds,
                               const profile::ProgressFn& progress) {
  if (num_rounds < 1) {
    throw InputError(fmt::format("--rounds: must be at least 1 (got {})", num_rounds));
  }
  if (num_rounds == 1) return run_matrix(matrix, out_dir, progress);
  std::vector<nlohmann::ordered_json> round_jsons;
  for (int r = 1; r <= num_rounds; ++r) {
    progress(fmt::format("matrix: round {}/{}", r, num_rounds));
    const fs::path round_dir = fs::path(out_dir) / fmt::format("round-{}", r);
    round_jsons.push_back(run_matrix(matrix, round_dir.string(), progress).json);
  }
  MatrixResult result;
  result.json = rounds_json(round_jsons);
  result.markdown = rounds_markdown(result.json, round_jsons);
  write_matrix_files(result, out_dir);
  return result;
}

}  // namespace tidal::validate
