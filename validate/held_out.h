// Leave-one-architecture-out checks of a calibration: within one engine x GPU, each
// architecture's rows are predicted by a calibration fitted on the other architectures' rows,
// never on its own model nor on a checkpoint of the same architecture (DeepSeek-V3 and
// DeepSeek-R1 leave together). The figures say how far the calibration carries to a model it
// was not fitted on, which is what a user of it asks (docs/validation.md, "Against real engines").
#pragma once

#include <optional>
#include <vector>

#include "perf/calibration.h"
#include "validate/calibrate.h"
#include "validate/silicon_rows.h"

namespace tidal::validate {

// What one fit may use and what it predicts: for architecture_folds, the other architectures'
// rows and every row of the held-out architecture; for serving_mode_fold, the aggregated rows
// and the disaggregated ones.
struct ArchitectureFold {
  std::vector<const PreparedRow*> train;  // rows a fit may use
  std::vector<const PreparedRow*> test;   // rows it predicts, none of them in train
};

// One fold per architecture of `group` (rows of one engine x GPU) that leaves at least one row of
// another architecture to fit on, in the order of the architectures' names. With
// `train_on_aggregated_only` a fold fits on the aggregated rows only.
std::vector<ArchitectureFold> architecture_folds(const std::vector<const PreparedRow*>& group,
                                                 bool train_on_aggregated_only);

// The disaggregated rows of `group` (rows of one engine x GPU) predicted by a calibration fitted
// on its aggregated rows, every model's: the serving mode is what is held out (no disaggregated
// run is fitted on). Empty when the group lacks either kind of row.
std::optional<ArchitectureFold> serving_mode_fold(const std::vector<const PreparedRow*>& group);

// One fold fitted and its held-out rows predicted, with the fold's calibration and without any.
struct FoldPredictions {
  std::vector<const PreparedRow*> rows;     // the fold's test rows
  std::vector<RowPrediction> calibrated;    // [rows.size()]
  std::vector<RowPrediction> uncalibrated;  // [rows.size()]
};
FoldPredictions predict_fold(const ArchitectureFold& fold, const CalibrateOptions& options);

// The figures of a group's folds together, over the rows where some measured request finished in
// both predictions (as bench/silicon counts them; the others are counted apart). Empty when no
// row is left.
std::optional<perf::HeldOutFigures> held_out_figures(const std::vector<FoldPredictions>& folds);

}  // namespace tidal::validate
