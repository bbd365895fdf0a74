#include "validate/limits_reading.h"

#include <cmath>
#include <map>
#include <string>

namespace tidal::validate {
namespace {

// TTFT plus TPOT absolute percentage error of one prediction of a row.
double row_error(const PreparedRow& row, const RowPrediction& p) {
  return std::abs(p.ttft_ms / row.run.ttft_ms - 1.0) + std::abs(p.tpot_ms / row.run.tpot_ms - 1.0);
}

}  // namespace

LimitsChoice choose_limits_held_out(const std::vector<const PreparedRow*>& rows,
                                    const std::vector<RowPrediction>& presets,
                                    const std::vector<std::optional<RowPrediction>>& generator) {
  // Per engine x GPU and architecture: the summed errors of each reading and the row count over
  // the rows that have both.
  struct Sums {
    double presets = 0.0;
    double generator = 0.0;
    int64_t num_rows = 0;
  };
  std::map<std::string, std::map<std::string, Sums>> by_group;
  for (size_t i = 0; i < rows.size(); ++i) {
    const PreparedRow& row = *rows[i];
    if (row.run.mode == "disagg" || !generator[i]) continue;
    Sums& s = by_group[row.engine + " on " + row.gpu][row.architecture];
    s.presets += row_error(row, presets[i]);
    s.generator += row_error(row, *generator[i]);
    ++s.num_rows;
  }
  LimitsChoice choice;
  choice.readings.assign(rows.size(), LimitsReading::presets);
  choice.predicted = presets;
  for (size_t i = 0; i < rows.size(); ++i) {
    const PreparedRow& row = *rows[i];
    if (row.run.mode == "disagg" || !generator[i]) continue;
    const auto group = by_group.find(row.engine + " on " + row.gpu);
    if (group == by_group.end()) continue;
    Sums others;
    for (const auto& [architecture, s] : group->second) {
      if (architecture == row.architecture) continue;
      others.presets += s.presets;
      others.generator += s.generator;
      others.num_rows += s.num_rows;
    }
    if (others.num_rows == 0 || !(others.generator < others.presets)) continue;
    choice.readings[i] = LimitsReading::generator;
    choice.predicted[i] = *generator[i];
  }
  return choice;
}

}  // namespace tidal::validate
