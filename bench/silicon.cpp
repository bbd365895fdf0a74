// tidal's predictions of measured end-to-end runs (../shared/benchmarks/silicon/measured.csv):
// every row tidal can express is simulated as a closed loop of its concurrency at its lengths
// (validate/silicon_rows.h) under three step-time setups:
//   roofline   today's roofline with judged efficiencies, tidal's own scheduler defaults
//   kernel_db  the engine's measured kernels (AIConfigurator's tables) and its engine preset
//   calibrated kernel_db + a calibration fitted per engine x GPU on the OTHER models' rows
//              (leave-one-model-out, models of one architecture left out together; n/a where
//              the engine x GPU has no other architecture)
//   kernel_db_limits_held_out  kernel_db with each aggregated row's batching limits (the
//              presets' or AIConfigurator's generator's) read on the other architectures' rows
//              of its engine x GPU (validate/limits_reading.h); absent with --generated-limits 1
//   calibrated_lomo_limits_held_out  the calibrated setup fitted and predicting on those limits
//   calibrated_on_aggregated  disaggregated rows only: kernel_db + a calibration fitted on every
//              aggregated row of the engine x GPU, the row's own model's included (the serving
//              mode held out)
// A measured run written as several rows (measured_repeats.h) is simulated and counted once.
// Disaggregated rows (mode disagg) run as a prefill pool and a decode pool of the row's workers
// joined by a KV link (validate/silicon_rows.cpp); calibrations are fitted on aggregated rows.
// One JSON line per group (model x GPU x engine x precision, "| disagg" for disaggregated rows),
// then the overall figures of aggregated and of disaggregated rows, the aggregated rows split by
// whether the run's engine version is the one the kernel tables were measured on and by engine
// and band of clients (where a plan's operating point falls), each setup against the issues'
// targets (validate/silicon_targets.h: met or not, and the groups above twice the overall
// figure), and the rows left out with their reasons.
// Usage: silicon --help.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "base/output_files.h"
#include "bench/option_pairs.h"
#include "validate/calibrate.h"
#include "validate/held_out.h"
#include "validate/limits_reading.h"
#include "validate/measured_repeats.h"
#include "validate/measured_runs.h"
#include "validate/parallel_for.h"
#include "validate/silicon_rows.h"
#include "validate/silicon_targets.h"

namespace {

using tidal::validate::PreparedRow;
using tidal::validate::RowPrediction;

struct Args {
  std::string measured = std::string(TIDAL_SHARED_DIR) + "/benchmarks/silicon/measured.csv";
  std::string configs = std::string(TIDAL_SHARED_DIR) + "/models/hf-configs";
  std::string kernel_db = std::string(TIDAL_SHARED_DIR) + "/profiles/aiconfigurator";
  int64_t max_rows_per_group = 1000000;
  // --every N: of each group's rows (file order), the 1st, (N+1)th, ...: a quicker run over the
  // same spread of concurrency and lengths
  int64_t every = 1;
  int64_t max_fit_rows = 8;
  int num_threads = 2;
  bool fit_scales = true;  // --fit-scales 0: the calibration fits overheads and front end only
  bool use_prior = true;   // --prior 0: a plain least-squares fit, no pull toward the preset
  bool calibrate = true;   // --calibrate 0: roofline and kernel_db only (no fits; far faster)
  std::string rows_out;    // a CSV of every row's measured and predicted figures, when given
  int64_t requests_per_client = tidal::validate::SiliconOptions{}.requests_per_client;
  // --count-first 0: each client's first request is warm-up
  bool count_first_requests = tidal::validate::SiliconOptions{}.count_first_requests;
  // --stagger 1: the clients run staggered, not in lockstep (SiliconOptions::stagger_clients)
  bool stagger_clients = tidal::validate::SiliconOptions{}.stagger_clients;
  // --generated-limits 1: aggregated rows batch as AIConfigurator's generator configured their
  // engines (SiliconOptions::generated_limits)
  bool generated_limits = tidal::validate::SiliconOptions{}.generated_limits;
};

constexpr std::string_view kUsage =
    "usage: silicon [--measured F] [--configs DIR] [--kernel-db DIR] [--max-rows-per-group N]\n"
    "               [--every N] [--threads N] [--max-fit-rows N] [--rows-out rows.csv]\n"
    "               [--fit-scales 0|1] [--requests-per-client N] [--count-first 0|1]\n"
    "               [--prior 0|1] [--calibrate 0|1] [--stagger 0|1] [--generated-limits 0|1]";

Args parse_args(int argc, char** argv) {
  Args a;
  const tidal::bench::OptionPairs options = tidal::bench::option_pairs(
      argc, argv,
      {"--measured", "--configs", "--kernel-db", "--max-rows-per-group", "--every", "--threads",
       "--max-fit-rows", "--rows-out", "--fit-scales", "--prior", "--calibrate",
       "--requests-per-client", "--count-first", "--stagger", "--generated-limits"},
      kUsage);
  const auto number = [&](const std::string& key, const std::string& value, auto minimum) {
    return tidal::bench::option_number(argv[0], key, value, minimum, kUsage);
  };
  for (const auto& [key, value] : options) {
    if (key == "--measured")
      a.measured = value;
    else if (key == "--configs")
      a.configs = value;
    else if (key == "--kernel-db")
      a.kernel_db = value;
    else if (key == "--max-rows-per-group")
      a.max_rows_per_group = number(key, value, int64_t{1});
    else if (key == "--every")
      a.every = number(key, value, int64_t{1});
    else if (key == "--max-fit-rows")
      a.max_fit_rows = number(key, value, int64_t{1});
    else if (key == "--threads")
      a.num_threads = number(key, value, 1);
    else if (key == "--rows-out")
      a.rows_out = value;
    else if (key == "--fit-scales")
      a.fit_scales = value != "0";
    else if (key == "--prior")
      a.use_prior = value != "0";
    else if (key == "--calibrate")
      a.calibrate = value != "0";
    else if (key == "--requests-per-client")
      a.requests_per_client = number(key, value, int64_t{1});
    else if (key == "--count-first")
      a.count_first_requests = value != "0";
    else if (key == "--stagger")
      a.stagger_clients = value != "0";
    else
      a.generated_limits = value != "0";
  }
  return a;
}

// Runs `work(i)` for i in [0, n) on num_threads threads; results land by index (deterministic).
// Each finished item is told on stderr ("silicon: <what> 12/560: <describe(i)>, 3.2 s"), so an
// hours-long run shows how far it is and which rows take the time.
template <typename Work, typename Describe>
void parallel_for(size_t n, int num_threads, const char* what, const Work& work,
                  const Describe& describe) {
  size_t num_done = 0;  // on_done runs one call at a time
  tidal::validate::parallel_for(n, num_threads, work, [&](size_t i, double seconds) {
    std::fprintf(stderr, "silicon: %s %zu/%zu: %s, %.1f s\n", what, ++num_done, n,
                 describe(i).c_str(), seconds);
  });
}

std::string group_key(const tidal::validate::MeasuredRun& r) {
  const std::string key =
      fmt::format("{} | {} | {} | {}", r.model, r.system, r.engine, r.precision);
  return r.mode == "disagg" ? key + " | disagg" : key;
}

// Bands of client counts by their upper bounds, and one above the last, for the engine x
// clients lines.
constexpr int64_t kBandUpper[] = {4, 16, 64, 256};
constexpr int kNumBands = static_cast<int>(std::size(kBandUpper)) + 1;

int clients_band(int64_t concurrency) {
  int band = 0;
  while (band + 1 < kNumBands && concurrency > kBandUpper[band]) ++band;
  return band;
}

std::string band_label(int band) {
  if (band + 1 == kNumBands) return fmt::format("over {} clients", kBandUpper[band - 1]);
  const int64_t low = band == 0 ? 1 : kBandUpper[band - 1] + 1;
  return fmt::format("{}-{} clients", low, kBandUpper[band]);
}

nlohmann::ordered_json figures(const std::vector<const PreparedRow*>& rows,
                               const std::vector<RowPrediction>& predictions) {
  if (rows.empty()) return nullptr;
  const tidal::validate::ErrorFigures e = tidal::validate::error_figures(rows, predictions);
  return {
      {"ttft_mape_pct", e.ttft_mape_pct},         {"ttft_median_ape_pct", e.ttft_median_ape_pct},
      {"tpot_mape_pct", e.tpot_mape_pct},         {"tpot_median_ape_pct", e.tpot_median_ape_pct},
      {"ttft_median_ratio", e.ttft_median_ratio}, {"tpot_median_ratio", e.tpot_median_ratio},
      {"ttft_share_under", e.ttft_share_under},   {"tpot_share_under", e.tpot_share_under}};
}

}  // namespace

int main(int argc, char** argv) try {
  const Args args = parse_args(argc, argv);
  const std::vector<tidal::validate::MeasuredRun> runs =
      tidal::validate::read_measured_csv(args.measured);
  const tidal::validate::SiliconOptions roofline_options{args.configs,
                                                         args.kernel_db,
                                                         "roofline",
                                                         false,
                                                         args.requests_per_client,
                                                         args.count_first_requests,
                                                         args.stagger_clients,
                                                         args.generated_limits};
  const tidal::validate::SiliconOptions kernel_options{args.configs,
                                                       args.kernel_db,
                                                       "kernel_db",
                                                       true,
                                                       args.requests_per_client,
                                                       args.count_first_requests,
                                                       args.stagger_clients,
                                                       args.generated_limits};
  // The other reading of an aggregated row's limits, for the held-out choice between the two.
  const bool read_limits = !args.generated_limits;
  tidal::validate::SiliconOptions generator_options = kernel_options;
  generator_options.generated_limits = true;

  // Rows both setups can express, every `every`-th of each group, at most max_rows_per_group
  // per group (in file order).
  std::map<std::string, int64_t> reasons;
  std::map<std::string, int64_t> taken;
  std::map<std::string, int64_t> seen;
  tidal::validate::TakenRuns taken_runs;
  std::vector<PreparedRow> roofline_rows;
  std::vector<PreparedRow> kernel_rows;
  std::vector<std::optional<PreparedRow>> generator_rows;  // [rows] aggregated rows only
  for (const auto& run : runs) {
    std::string reason;
    if (taken[group_key(run)] >= args.max_rows_per_group) continue;
    if (seen[group_key(run)]++ % args.every != 0) continue;
    auto roofline = tidal::validate::prepare_row(run, roofline_options, &reason);
    auto kernel =
        roofline ? tidal::validate::prepare_row(run, kernel_options, &reason) : std::nullopt;
    if (!roofline || !kernel) {
      ++reasons[tidal::validate::left_out_key(reason)];
      continue;
    }
    if (!taken_runs.first(run)) {
      ++reasons["the same measured run as an earlier row"];
      continue;
    }
    ++taken[group_key(run)];
    roofline_rows.push_back(std::move(*roofline));
    kernel_rows.push_back(std::move(*kernel));
    std::string generator_reason;
    generator_rows.push_back(
        read_limits && run.mode != "disagg"
            ? tidal::validate::prepare_row(run, generator_options, &generator_reason)
            : std::nullopt);
  }
  if (kernel_rows.empty()) {
    throw tidal::InputError(
        tidal::validate::no_expressible_row_error(args.measured, runs.size(), reasons));
  }
  const size_t n = kernel_rows.size();
  std::vector<RowPrediction> roofline(n), kernel(n), calibrated(n);
  std::vector<std::optional<RowPrediction>> generator(n);
  std::vector<char> has_calibrated(n, 0);
  parallel_for(
      n, args.num_threads, "rows (roofline, kernel_db)",
      [&](size_t i) {
        roofline[i] = tidal::validate::predict_row(roofline_rows[i], nullptr);
        kernel[i] = tidal::validate::predict_row(kernel_rows[i], nullptr);
        if (generator_rows[i]) {
          const RowPrediction p = tidal::validate::predict_row(*generator_rows[i], nullptr);
          if (p.num_measured > 0) generator[i] = p;
        }
      },
      [&](size_t i) {
        const tidal::validate::MeasuredRun& r = kernel_rows[i].run;
        return fmt::format("{} (concurrency {}, {} x {})", r.id, r.concurrency, r.isl, r.osl);
      });
  // Rows where no measured request finished in a setup (rejected: KV or context too small) leave
  // the comparison, counted.
  {
    std::vector<PreparedRow> kept_roofline, kept_kernel;
    std::vector<RowPrediction> kept_r, kept_k;
    std::vector<std::optional<PreparedRow>> kept_generator_rows;
    std::vector<std::optional<RowPrediction>> kept_g;
    for (size_t i = 0; i < n; ++i) {
      if (roofline[i].num_measured == 0 || kernel[i].num_measured == 0) {
        ++reasons["no measured request finished in the simulation"];
        continue;
      }
      kept_roofline.push_back(std::move(roofline_rows[i]));
      kept_kernel.push_back(std::move(kernel_rows[i]));
      kept_r.push_back(roofline[i]);
      kept_k.push_back(kernel[i]);
      kept_generator_rows.push_back(std::move(generator_rows[i]));
      kept_g.push_back(generator[i]);
    }
    roofline_rows = std::move(kept_roofline);
    kernel_rows = std::move(kept_kernel);
    roofline = std::move(kept_r);
    kernel = std::move(kept_k);
    generator_rows = std::move(kept_generator_rows);
    generator = std::move(kept_g);
  }
  const size_t num_kept = kernel_rows.size();
  std::vector<const PreparedRow*> kept_row_pointers;
  for (const PreparedRow& row : kernel_rows) kept_row_pointers.push_back(&row);
  const tidal::validate::LimitsChoice limits =
      tidal::validate::choose_limits_held_out(kept_row_pointers, kernel, generator);
  calibrated.assign(num_kept, RowPrediction{});
  std::vector<RowPrediction> calibrated_read(num_kept);  // on the read limits (limits_reading.h)
  has_calibrated.assign(num_kept, 0);

  // Leave one model out within each engine x GPU; models of one architecture (DeepSeek-V3 and
  // DeepSeek-R1) leave together. Fitted on aggregated rows only (one pool each); applied to both
  // pools of a disaggregated row.
  std::map<std::string, std::vector<const PreparedRow*>> by_engine_gpu;
  for (const PreparedRow& row : kernel_rows)
    by_engine_gpu[row.engine + " on " + row.gpu].push_back(&row);
  std::vector<tidal::validate::ArchitectureFold> folds;
  if (args.calibrate) {
    for (const auto& [key, group] : by_engine_gpu) {
      for (tidal::validate::ArchitectureFold& fold :
           tidal::validate::architecture_folds(group, true)) {
        folds.push_back(std::move(fold));
      }
    }
  }
  const auto index_of = [&](const PreparedRow* row) {
    return static_cast<size_t>(row - kernel_rows.data());
  };
  tidal::validate::CalibrateOptions calibrate_options;
  calibrate_options.max_fit_rows = args.max_fit_rows;
  calibrate_options.fit_scales = args.fit_scales;
  calibrate_options.use_prior = args.use_prior;
  const auto describe_fold = [&](size_t f) {
    std::set<std::string> held_out_models;
    for (const PreparedRow* row : folds[f].test) held_out_models.insert(row->model);
    std::string models;
    for (const std::string& model : held_out_models) {
      models += (models.empty() ? "" : " and ") + model;
    }
    const PreparedRow& held_out = *folds[f].test.front();
    return fmt::format("{} on {} without {}", held_out.engine, held_out.gpu, models);
  };
  // Fits each fold on its training rows and predicts its test rows into `predictions`, marking
  // them in `predicted`.
  const auto fit_folds = [&](const std::vector<tidal::validate::ArchitectureFold>& fits,
                             const char* what, const auto& describe,
                             std::vector<RowPrediction>& predictions,
                             std::vector<char>& predicted) {
    parallel_for(
        fits.size(), args.num_threads, what,
        [&](size_t f) {
          const tidal::perf::Calibration c =
              tidal::validate::fit_calibration(fits[f].train, calibrate_options);
          for (const PreparedRow* row : fits[f].test) {
            predictions[index_of(row)] = tidal::validate::predict_row(*row, &c);
            predicted[index_of(row)] = 1;
          }
        },
        describe);
  };
  fit_folds(folds, "leave-one-model-out fits", describe_fold, calibrated, has_calibrated);

  // The disaggregated rows once more, each predicted by a calibration fitted on every aggregated
  // row of its engine x GPU (its own model's included): what is held out is the serving mode.
  std::vector<tidal::validate::ArchitectureFold> mode_folds;
  if (args.calibrate) {
    for (const auto& [key, group] : by_engine_gpu) {
      if (auto fold = tidal::validate::serving_mode_fold(group)) mode_folds.push_back(*fold);
    }
  }
  std::vector<RowPrediction> calibrated_on_agg(num_kept);
  std::vector<char> has_calibrated_on_agg(num_kept, 0);
  const auto describe_mode_fold = [&](size_t f) {
    const PreparedRow& row = *mode_folds[f].test.front();
    return fmt::format("{} on {}: disaggregated rows", row.engine, row.gpu);
  };
  fit_folds(mode_folds, "fits on the aggregated rows", describe_mode_fold, calibrated_on_agg,
            has_calibrated_on_agg);

  // The calibration on the read limits: a fold's held-out rows got their reading from the
  // fold's training rows (the other architectures), so the fit runs those rows under that reading
  // and predicts the held-out rows under it; rows without the generator's reading keep the
  // presets'.
  if (read_limits) {
    parallel_for(
        folds.size(), args.num_threads, "leave-one-model-out fits on the read limits",
        [&](size_t f) {
          const bool generator_fold =
              std::any_of(folds[f].test.begin(), folds[f].test.end(), [&](const PreparedRow* row) {
                return limits.readings[index_of(row)] == tidal::validate::LimitsReading::generator;
              });
          const auto read = [&](const PreparedRow* row) {
            const size_t i = index_of(row);
            return generator_fold && generator[i] ? &*generator_rows[i] : row;
          };
          std::vector<const PreparedRow*> train;
          for (const PreparedRow* row : folds[f].train) train.push_back(read(row));
          const tidal::perf::Calibration c =
              tidal::validate::fit_calibration(train, calibrate_options);
          for (const PreparedRow* row : folds[f].test) {
            calibrated_read[index_of(row)] = tidal::validate::predict_row(*read(row), &c);
          }
        },
        describe_fold);
  }

  if (!args.rows_out.empty()) {
    std::string csv =
        "id,group,concurrency,isl,osl,tp,measured_ttft_ms,measured_tpot_ms,roofline_ttft_ms,"
        "roofline_tpot_ms,kernel_db_ttft_ms,kernel_db_tpot_ms,calibrated_ttft_ms,"
        "calibrated_tpot_ms,generator_limits_ttft_ms,generator_limits_tpot_ms,limits_read,"
        "calibrated_on_aggregated_ttft_ms,calibrated_on_aggregated_tpot_ms\n";
    for (size_t i = 0; i < num_kept; ++i) {
      const auto& r = kernel_rows[i].run;
      csv += fmt::format(
          "{},\"{}\",{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{},{},{},{},{},{},{}\n",
          r.id, group_key(r), r.concurrency, r.isl, r.osl, r.tp, r.ttft_ms, r.tpot_ms,
          roofline[i].ttft_ms, roofline[i].tpot_ms, kernel[i].ttft_ms, kernel[i].tpot_ms,
          has_calibrated[i] ? fmt::format("{:.3f}", calibrated[i].ttft_ms) : "",
          has_calibrated[i] ? fmt::format("{:.3f}", calibrated[i].tpot_ms) : "",
          generator[i] ? fmt::format("{:.3f}", generator[i]->ttft_ms) : "",
          generator[i] ? fmt::format("{:.3f}", generator[i]->tpot_ms) : "",
          limits.readings[i] == tidal::validate::LimitsReading::generator ? "generator" : "presets",
          has_calibrated_on_agg[i] ? fmt::format("{:.3f}", calibrated_on_agg[i].ttft_ms) : "",
          has_calibrated_on_agg[i] ? fmt::format("{:.3f}", calibrated_on_agg[i].tpot_ms) : "");
    }
    tidal::base::write_output_text(args.rows_out, csv);
  }
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < num_kept; ++i) groups[group_key(kernel_rows[i].run)].push_back(i);
  // `only`: the rows a setup predicted (a calibrated one: those with a fit); null: every row.
  const auto select = [&](const std::vector<size_t>& indices, const std::vector<RowPrediction>& p,
                          const std::vector<char>* only) {
    std::pair<std::vector<const PreparedRow*>, std::vector<RowPrediction>> out;
    for (size_t i : indices) {
      if (only && !(*only)[i]) continue;
      out.first.push_back(&kernel_rows[i]);
      out.second.push_back(p[i]);
    }
    return out;
  };
  std::vector<size_t> all_agg, all_disagg;
  for (size_t i = 0; i < num_kept; ++i) {
    (kernel_rows[i].run.mode == "disagg" ? all_disagg : all_agg).push_back(i);
  }
  for (const auto& [key, indices] : groups) {
    const auto [r_rows, r_pred] = select(indices, roofline, nullptr);
    const auto [k_rows, k_pred] = select(indices, kernel, nullptr);
    const auto [c_rows, c_pred] = select(indices, calibrated, &has_calibrated);
    nlohmann::ordered_json line{{"bench", "silicon"},
                                {"group", key},
                                {"num_rows", indices.size()},
                                {"roofline", figures(r_rows, r_pred)},
                                {"kernel_db", figures(k_rows, k_pred)},
                                {"calibrated_lomo", figures(c_rows, c_pred)}};
    if (read_limits) {
      const auto [l_rows, l_pred] = select(indices, limits.predicted, nullptr);
      line["kernel_db_limits_held_out"] = figures(l_rows, l_pred);
      const auto [lc_rows, lc_pred] = select(indices, calibrated_read, &has_calibrated);
      line["calibrated_lomo_limits_held_out"] = figures(lc_rows, lc_pred);
    }
    const auto [a_rows, a_pred] = select(indices, calibrated_on_agg, &has_calibrated_on_agg);
    if (!a_rows.empty()) line["calibrated_on_aggregated"] = figures(a_rows, a_pred);
    std::printf("%s\n", line.dump().c_str());
  }
  // The aggregated rows split by the run's engine version: the kernel tables' own (as measured.csv
  // writes backend_version), another, or none recorded.
  std::vector<size_t> agg_same_version, agg_other_version, agg_no_version;
  for (size_t i : all_agg) {
    const PreparedRow& row = kernel_rows[i];
    if (row.run.engine_version.empty()) {
      agg_no_version.push_back(i);
    } else {
      (row.run.engine_version == row.kernel_tables_version ? agg_same_version : agg_other_version)
          .push_back(i);
    }
  }
  std::vector<std::pair<std::string, const std::vector<size_t>*>> slices{
      {"all expressible aggregated rows", &all_agg},
      {"all expressible disaggregated rows", &all_disagg},
      {"aggregated rows run on the kernel tables' engine version", &agg_same_version},
      {"aggregated rows run on another engine version", &agg_other_version},
      {"aggregated rows with no engine version recorded", &agg_no_version}};
  // The aggregated rows by engine and band of clients, in engine then band order.
  std::map<std::pair<std::string, int>, std::vector<size_t>> by_engine_band;
  for (size_t i : all_agg) {
    const auto& run = kernel_rows[i].run;
    by_engine_band[{run.engine, clients_band(run.concurrency)}].push_back(i);
  }
  for (const auto& [key, rows] : by_engine_band) {
    slices.emplace_back(fmt::format("aggregated {} rows, {}", key.first, band_label(key.second)),
                        &rows);
  }
  for (const auto& [label, rows] : slices) {
    const auto [r_rows, r_pred] = select(*rows, roofline, nullptr);
    const auto [k_rows, k_pred] = select(*rows, kernel, nullptr);
    const auto [c_rows, c_pred] = select(*rows, calibrated, &has_calibrated);
    const auto num_layout_unmultiplied = std::count_if(rows->begin(), rows->end(), [&](size_t i) {
      return kernel_rows[i].run.layout_unmultiplied;
    });
    nlohmann::ordered_json overall{{"bench", "silicon"},
                                   {"group", label},
                                   {"num_rows", rows->size()},
                                   {"num_rows_layout_unmultiplied", num_layout_unmultiplied},
                                   {"num_rows_calibrated", c_rows.size()},
                                   {"roofline", figures(r_rows, r_pred)},
                                   {"kernel_db", figures(k_rows, k_pred)},
                                   {"calibrated_lomo", figures(c_rows, c_pred)}};
    if (read_limits) {
      const auto [l_rows, l_pred] = select(*rows, limits.predicted, nullptr);
      overall["kernel_db_limits_held_out"] = figures(l_rows, l_pred);
      const auto [lc_rows, lc_pred] = select(*rows, calibrated_read, &has_calibrated);
      overall["calibrated_lomo_limits_held_out"] = figures(lc_rows, lc_pred);
    }
    const auto [a_rows, a_pred] = select(*rows, calibrated_on_agg, &has_calibrated_on_agg);
    if (!a_rows.empty()) overall["calibrated_on_aggregated"] = figures(a_rows, a_pred);
    std::printf("%s\n", overall.dump().c_str());
  }
  // kernel_db and the calibration against the targets: the aggregated rows with their groups,
  // the disaggregated rows.
  struct Setup {
    const char* name;
    const std::vector<RowPrediction>* predictions;
    const std::vector<char>* only;  // select's
  };
  std::vector<Setup> setups{{"kernel_db", &kernel, nullptr},
                            {"calibrated_lomo", &calibrated, &has_calibrated}};
  if (read_limits) {
    setups.push_back({"kernel_db_limits_held_out", &limits.predicted, nullptr});
    setups.push_back({"calibrated_lomo_limits_held_out", &calibrated_read, &has_calibrated});
  }
  setups.push_back({"calibrated_on_aggregated", &calibrated_on_agg, &has_calibrated_on_agg});
  for (const auto& [setup, predictions, only] : setups) {
    for (const bool disagg : {false, true}) {
      const auto [slice_rows, slice_pred] =
          select(disagg ? all_disagg : all_agg, *predictions, only);
      if (slice_rows.empty()) continue;
      std::vector<tidal::validate::GroupErrors> group_errors;
      for (const auto& [key, indices] : groups) {
        if ((kernel_rows[indices.front()].run.mode == "disagg") != disagg) continue;
        const auto [g_rows, g_pred] = select(indices, *predictions, only);
        if (g_rows.empty()) continue;
        group_errors.push_back(
            {key, g_rows.size(), tidal::validate::error_figures(g_rows, g_pred)});
      }
      const tidal::validate::SiliconTargets targets =
          disagg ? tidal::validate::disaggregated_targets() : tidal::validate::aggregated_targets();
      const tidal::validate::ErrorFigures overall =
          tidal::validate::error_figures(slice_rows, slice_pred);
      const tidal::validate::TargetCheck check =
          tidal::validate::check_targets(targets, overall, group_errors);
      nlohmann::ordered_json over = nlohmann::ordered_json::array();
      for (const auto& g : check.groups_over) {
        over.push_back({{"group", g.group},
                        {"num_rows", g.num_rows},
                        {"ttft_mape_pct", g.ttft_mape_pct},
                        {"tpot_mape_pct", g.tpot_mape_pct},
                        {"ttft_over", g.ttft_over},
                        {"tpot_over", g.tpot_over}});
      }
      nlohmann::ordered_json line{{"bench", "silicon"},
                                  {"targets", disagg ? "all expressible disaggregated rows"
                                                     : "all expressible aggregated rows"},
                                  {"setup", setup},
                                  {"num_rows", slice_rows.size()},
                                  {"ttft_mape_pct", overall.ttft_mape_pct},
                                  {"ttft_target_pct", targets.ttft_mape_pct},
                                  {"ttft_met", check.ttft_met},
                                  {"tpot_mape_pct", overall.tpot_mape_pct},
                                  {"tpot_target_pct", targets.tpot_mape_pct},
                                  {"tpot_met", check.tpot_met}};
      if (targets.max_group_over_overall > 0.0) {
        line["group_bound_over_overall"] = targets.max_group_over_overall;
        line["group_ttft_bound_pct"] = check.group_ttft_bound_pct;
        line["group_tpot_bound_pct"] = check.group_tpot_bound_pct;
        line["num_groups"] = group_errors.size();
        line["groups_met"] = check.groups_met;
        line["groups_over"] = over;
      }
      line["met"] = check.met();
      std::printf("%s\n", line.dump().c_str());
    }
  }
  nlohmann::ordered_json left_out = nlohmann::ordered_json::object();
  for (const auto& [reason, count] : reasons) left_out[reason] = count;
  std::printf("%s\n",
              nlohmann::ordered_json{{"bench", "silicon"}, {"left_out", left_out}}.dump().c_str());
  return 0;
} catch (const tidal::InputError& e) {
  std::fprintf(stderr, "silicon: %s\n", e.what());
  return 1;
}
