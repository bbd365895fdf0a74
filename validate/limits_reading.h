// Which batching limits an aggregated measured run was set up with, read on other models.
// measured.csv does not record an engine's limits: its rows ran either the engine's defaults
// (the presets') or the limits AIConfigurator's generator gives a benchmark run
// (SiliconOptions::generated_limits), and the rows of one engine on one GPU tell which by how
// well each reading predicts them. A row's reading is chosen on the rows of the *other*
// architectures of its engine x GPU (never on its own model's rows: the same folds as the
// calibration's, held_out.h), so the figures it gives are held out (docs/validation.md, "The
// batching limits read on the other models").
#pragma once

#include <optional>
#include <vector>

#include "validate/silicon_rows.h"

namespace tidal::validate {

enum class LimitsReading : char { presets, generator };

struct LimitsChoice {
  std::vector<LimitsReading> readings;   // [num rows] the reading each row is predicted with
  std::vector<RowPrediction> predicted;  // [num rows] the prediction of that reading
};

// `presets[i]` and `generator[i]` are row i's predictions under each reading; `generator[i]` is
// empty where that reading does not exist or did not finish a measured request. An aggregated
// row takes the generator's reading when, over the aggregated rows of the other architectures
// of its engine x GPU that have both readings, the generator's mean of TTFT plus TPOT absolute
// percentage error is below the presets'; otherwise (also with no such row) the presets', the
// default. Disaggregated rows keep the presets' (the generator's aggregated rule is not theirs).
LimitsChoice choose_limits_held_out(const std::vector<const PreparedRow*>& rows,
                                    const std::vector<RowPrediction>& presets,
                                    const std::vector<std::optional<RowPrediction>>& generator);

}  // namespace tidal::validate
