// `tidal calibrate`: measured runs in, a calibration file out (one fitted group per engine x GPU
// of the rows tidal can express), with every row it could not use counted by reason.
#pragma once

#include <iosfwd>
#include <string>

#include "perf/calibration.h"
#include "validate/calibrate.h"
#include "validate/measured_runs.h"
#include "validate/silicon_rows.h"

namespace tidal::validate {

struct CalibrateCommand {
  std::string measured;        // measured.csv, or a `vllm bench serve --save-result` JSON
  MeasuredRun bench_defaults;  // for a vllm bench JSON: model, system, tp (engine "vllm")
  std::string out;             // calibration JSON, written atomically
  SiliconOptions silicon;      // configs, kernel tables, step model (kernel_db + presets)
  CalibrateOptions fit;
  // Also measure each group's calibration on the architectures it was not fitted on
  // (validate/held_out.h): one more fit per architecture.
  bool held_out = false;
  int num_threads = 1;  // engine x GPU groups fitted at once
};

// Reads, fits, writes `out`; prints a line per group and the rows left out to `log`, and, when
// `progress` is given, a line per finished fit as it finishes (they take minutes). InputError
// for unreadable input and when no row can be expressed.
perf::CalibrationFile run_calibrate(const CalibrateCommand& command, std::ostream& log,
                                    std::ostream* progress = nullptr);

}  // namespace tidal::validate
