// `tidal validate`: the engine and the simulator on the same requests, compared.
//
//   DIR/profile.json       the profile used, when measured here (no --profile given)
//   DIR/engine/            the engine's run folder (engine/run_writer.h), steps.csv included
//   DIR/engine-repeat/     a second engine run of the same case (--repeat-engine)
//   DIR/sim/               the simulator's run folder (sim/run_output.h)
//   DIR/step_errors.csv    every engine step: measured vs predicted duration
//   DIR/validation.json    every figure (docs/validation.md); reports/ renders it
//   DIR/validation.txt     the printed table
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/engine_run.h"
#include "engine/profile/profiler.h"

namespace tidal::validate {

struct ValidateOptions {
  engine::EngineRunArgs run;        // model, trace, format, engine config, replay (out_dir unused)
  std::string profile_path;         // empty: measure a profile first with `profile`
  profile::ProfileOptions profile;  // model and engine config are taken from `run`
  // Arrival rate as a share of the simulated capacity (requests/s of the same requests all
  // arriving at once); overrides run.replay.time_scale when given.
  std::optional<double> load;
  bool repeat_engine = false;  // run the engine twice and report the spread
  std::string out_dir;
  std::string title;  // default: "<trace stem> on <model>"
};

struct ValidationResult {
  nlohmann::ordered_json json;  // validation.json
  std::string table;            // validation.txt
};

// options.profile with the case's model, seed and engine config, its grids cut to the case's
// scheduler limits (decode batches up to max_num_seqs, tokens up to max_num_batched_tokens).
profile::ProfileOptions profile_options_for(const ValidateOptions& options);

// The case's profile measured on its engine backend (`tidal profile --backend cpu|cuda`).
perf::Profile measure_profile(const ValidateOptions& options, const profile::ProgressFn& progress);

// InputError for bad input (names the option or file).
ValidationResult run_validation(const ValidateOptions& options,
                                const profile::ProgressFn& progress);

}  // namespace tidal::validate
