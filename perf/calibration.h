// Coefficients fitted against measured end-to-end runs (`tidal calibrate`), per engine and GPU,
// and the step-time model that applies them to another model's steps. The file format is
// `tidal-calibration-v1` (docs/validation.md, "Against real engines").
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "perf/step_time_model.h"

namespace tidal::perf {

// One fitted coefficient with its standard error (from the fit's Jacobian; 0 when not fitted).
struct FittedValue {
  double value = 0.0;
  double stderr_value = 0.0;
};

// Operator classes a calibration may scale, at most one scale each. Every class not named here
// keeps scale 1.
enum class ScaledClass : int { gemm, attention, communication };
inline constexpr int kNumScaledClasses = 3;
// Which scaled class an operator class belongs to (none: elementwise ops, sampling, overhead).
bool scaled_class_of(OpClass op, ScaledClass* scaled);

// How far a calibration of this kind carries to a model it was not fitted on: each architecture's
// rows predicted by the calibration fitted on the group's other architectures
// (validate/held_out.h), beside the uncalibrated model on the same rows.
struct HeldOutFigures {
  int64_t num_rows = 0;           // rows predicted by a fit that never saw their architecture
  int64_t num_architectures = 0;  // architectures held out, one fit each
  // Rows left out of the figures: no measured request finished in a prediction (rejected: KV
  // or context too small).
  int64_t num_rows_unfinished = 0;
  double ttft_mape_pct = 0.0;
  double tpot_mape_pct = 0.0;
  double uncalibrated_ttft_mape_pct = 0.0;
  double uncalibrated_tpot_mape_pct = 0.0;
};

struct Calibration {
  std::string engine;                   // "vllm", "sglang", "trtllm"
  std::string gpu;                      // catalog name, e.g. "H200"
  FittedValue step_overhead_base_s;     // per step, replaces the model's cpu_overhead term
  FittedValue step_overhead_per_seq_s;  // per sequence with work in the step
  FittedValue frontend_per_request_s;   // API server, tokenization: before a request is scheduled
  // Host time per layer of a step that holds prefill tokens: such steps run outside the decode
  // CUDA graphs (eagerly, or piecewise with attention eager), so their kernel launches can take
  // longer than the GPU does; the step takes the longer of the two (docs/validation.md).
  FittedValue prefill_host_per_layer_s;
  std::array<FittedValue, kNumScaledClasses> scales{FittedValue{1.0, 0.0}, FittedValue{1.0, 0.0},
                                                    FittedValue{1.0, 0.0}};
  // Provenance: what it was fitted on and how far it was off there.
  int64_t num_rows = 0;
  std::vector<std::string> models;
  double ttft_mape_pct = 0.0;
  double tpot_mape_pct = 0.0;
  // `tidal calibrate --held-out` only; absent where the group has one architecture or no
  // held-out row finished a measured request.
  std::optional<HeldOutFigures> held_out;

  double scale(ScaledClass scaled) const { return scales[static_cast<size_t>(scaled)].value; }
};

struct CalibrationFile {
  std::vector<Calibration> groups;
  std::string base_model;  // the step-time model the coefficients were fitted on top of
  std::string created;     // date, tidal commit
};

// Strict JSON reading (unknown keys, missing keys, negative overheads or non-positive scales:
// InputError naming the file and JSON path) and atomic writing (temporary name, then rename).
CalibrationFile load_calibration(const std::string& path);
void save_calibration(const CalibrationFile& file, const std::string& path);
// A group's `held_out` object as the file writes it (summary.json echoes the same).
nlohmann::ordered_json held_out_json(const HeldOutFigures& h);
std::string calibration_to_json_text(const CalibrationFile& file);

// The group for (engine, gpu); InputError "<json_path>: <path> holds no calibration for
// <engine> on <gpu> (it holds: ...)" when there is none.
const Calibration& find_calibration(const CalibrationFile& file, const std::string& engine,
                                    const std::string& gpu, const std::string& path,
                                    const std::string& json_path);

// `base`'s steps with the calibration applied: each operator class's seconds times its scale,
// and the base model's cpu_overhead replaced by base + per_seq x (sequences with work), plus,
// in a step holding prefill tokens, what num_layers x prefill_host_per_layer_s exceeds the
// step's GPU time by. `num_layers`: the layers one GPU's host launches (a pipeline stage's).
std::unique_ptr<StepTimeModel> make_calibrated_model(std::shared_ptr<const StepTimeModel> base,
                                                     const Calibration& calibration,
                                                     int64_t num_layers);

}  // namespace tidal::perf
