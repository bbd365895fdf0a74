// One measured run written as several rows of measured.csv, and models that are one model to
// hold out. measured.csv holds 4,536 rows but fewer runs: the same run appears under ids of two
// or three collections (e.g. "dsr1_..._cfg191", "2026_03_25_deepseek_r1_...",
// "2026_04_06_deepseek_r1_..."), sometimes under the name of another checkpoint of the same
// architecture (DeepSeek-V3 and DeepSeek-R1). Counting such a run once, and holding out every
// model of an architecture together, keeps a leave-one-model-out figure from being fitted on the
// very runs it predicts.
#pragma once

#include <set>
#include <string>

#include "perf/model_spec.h"
#include "validate/measured_runs.h"

namespace tidal::validate {

// Equal for two rows of one measured run: the same engine, GPU system, mode, lengths and
// concurrency, and the same measured mean TTFT and TPOT to the last digit written (two runs do
// not agree in 16 digits on both).
std::string run_identity(const MeasuredRun& run);

// The runs taken so far: first(run) is true for the first row of each run, false for its repeats.
class TakenRuns {
 public:
  bool first(const MeasuredRun& run) { return identities_.insert(run_identity(run)).second; }

 private:
  std::set<std::string> identities_;  // run_identity of every run taken
};

// Equal for models whose weights have the same shapes (architecture, layers, widths, heads,
// experts): checkpoints of one architecture (DeepSeek-V3, DeepSeek-R1) run the same kernels.
std::string architecture_identity(const perf::ModelSpec& spec);

}  // namespace tidal::validate
