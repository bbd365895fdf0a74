// `tidal calibrate`: the coefficients measured nowhere else (per engine and GPU: the per-step
// host overhead, base and per sequence; the front-end time per request; the host launch time per
// layer of a prefill step; one scale each for the GEMMs and for attention), fitted by bounded least
// squares on the log ratios (relative errors) of mean TTFT and TPOT over measured runs
// (silicon_rows.h), each simulated in full.
#pragma once

#include <string>
#include <vector>

#include "perf/calibration.h"
#include "validate/silicon_rows.h"

namespace tidal::validate {

struct CalibrateOptions {
  // At most this many rows of a group enter the fit (an even spread over the group's rows in file
  // order); all of them are predicted afterwards.
  int64_t max_fit_rows = 12;
  int max_iterations = 6;
  // Fit the GEMM and attention scales too (else only the overheads and the front end).
  bool fit_scales = true;
  // Pull every coefficient toward its prior (a MAP fit): the overheads toward the engine
  // preset's figures, the scales toward 1, so that what the rows do not pin down stays where the
  // preset put it instead of absorbing another model's errors (calibrate.cpp, kPriorWidths).
  bool use_prior = true;
};

// Fits one engine x GPU group (every row the same engine and GPU; at least one row). The rows
// entering the fit are spread evenly over the group's models, then over each model's rows.
perf::Calibration fit_calibration(const std::vector<const PreparedRow*>& rows,
                                  const CalibrateOptions& options);

// Mean and median absolute percentage error of predictions against the rows' measurements, and
// which way they lean: the median of predicted / measured (1: as many too high as too low) and
// the share of rows predicted below the measurement.
struct ErrorFigures {
  double ttft_mape_pct = 0.0;
  double tpot_mape_pct = 0.0;
  double ttft_median_ape_pct = 0.0;
  double tpot_median_ape_pct = 0.0;
  double ttft_median_ratio = 0.0;
  double tpot_median_ratio = 0.0;
  double ttft_share_under = 0.0;  // in [0, 1]
  double tpot_share_under = 0.0;
};
ErrorFigures error_figures(const std::vector<const PreparedRow*>& rows,
                           const std::vector<RowPrediction>& predictions);

}  // namespace tidal::validate
