#include "perf/calibration.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "base/output_files.h"
#include "perf/json_reader.h"

namespace tidal::perf {
namespace {

constexpr char kFormat[] = "tidal-calibration-v1";
constexpr std::array<std::string_view, kNumScaledClasses> kScaledNames{"gemm", "attention",
                                                                       "communication"};

FittedValue read_fitted(JsonObjectReader& parent, std::string_view key) {
  JsonObjectReader obj = parent.object(key);
  FittedValue fitted{obj.number("value"), obj.number("stderr")};
  obj.finish();
  if (!(fitted.stderr_value >= 0.0)) {
    throw_json_error(obj.where(), obj.child_path("stderr"), "must be >= 0");
  }
  return fitted;
}

void check_non_negative(const JsonObjectReader& obj, std::string_view key, double value) {
  if (!(value >= 0.0))
    throw_json_error(obj.where(), obj.child_path(key) + ".value", "must be >= 0");
}

HeldOutFigures read_held_out(JsonObjectReader& g) {
  JsonObjectReader h = g.object("held_out");
  HeldOutFigures f;
  f.num_rows = h.integer("num_rows");
  f.num_architectures = h.integer("num_architectures");
  for (const auto& [key, count] :
       {std::pair{"num_rows", f.num_rows}, std::pair{"num_architectures", f.num_architectures}}) {
    if (count < 1) throw_json_error(h.where(), h.child_path(key), "must be >= 1");
  }
  f.num_rows_unfinished = h.integer("num_rows_unfinished");
  if (f.num_rows_unfinished < 0) {
    throw_json_error(h.where(), h.child_path("num_rows_unfinished"), "must be >= 0");
  }
  f.ttft_mape_pct = h.number("ttft_mape_pct");
  f.tpot_mape_pct = h.number("tpot_mape_pct");
  f.uncalibrated_ttft_mape_pct = h.number("uncalibrated_ttft_mape_pct");
  f.uncalibrated_tpot_mape_pct = h.number("uncalibrated_tpot_mape_pct");
  for (const auto& [key, pct] :
       {std::pair{"ttft_mape_pct", f.ttft_mape_pct}, std::pair{"tpot_mape_pct", f.tpot_mape_pct},
        std::pair{"uncalibrated_ttft_mape_pct", f.uncalibrated_ttft_mape_pct},
        std::pair{"uncalibrated_tpot_mape_pct", f.uncalibrated_tpot_mape_pct}}) {
    if (!(pct >= 0.0)) throw_json_error(h.where(), h.child_path(key), "must be >= 0");
  }
  h.finish();
  return f;
}

Calibration read_group(JsonObjectReader& g) {
  Calibration c;
  c.engine = g.string("engine");
  c.gpu = g.string("gpu");
  c.step_overhead_base_s = read_fitted(g, "step_overhead_base_s");
  c.step_overhead_per_seq_s = read_fitted(g, "step_overhead_per_seq_s");
  c.frontend_per_request_s = read_fitted(g, "frontend_per_request_s");
  check_non_negative(g, "step_overhead_base_s", c.step_overhead_base_s.value);
  check_non_negative(g, "step_overhead_per_seq_s", c.step_overhead_per_seq_s.value);
  check_non_negative(g, "frontend_per_request_s", c.frontend_per_request_s.value);
  // Absent in files written before the term existed: such a fit had it at 0.
  if (g.has("prefill_host_per_layer_s")) {
    c.prefill_host_per_layer_s = read_fitted(g, "prefill_host_per_layer_s");
    check_non_negative(g, "prefill_host_per_layer_s", c.prefill_host_per_layer_s.value);
  }
  JsonObjectReader scales = g.object("scales");
  for (int i = 0; i < kNumScaledClasses; ++i) {
    const std::string_view name = kScaledNames[static_cast<size_t>(i)];
    c.scales[static_cast<size_t>(i)] = read_fitted(scales, name);
    if (!(c.scales[static_cast<size_t>(i)].value > 0.0)) {
      throw_json_error(scales.where(), scales.child_path(name) + ".value", "must be > 0");
    }
  }
  scales.finish();
  JsonObjectReader fitted_on = g.object("fitted_on");
  c.num_rows = fitted_on.integer("num_rows");
  for (const auto& model : fitted_on.at("models")) c.models.push_back(model.get<std::string>());
  c.ttft_mape_pct = fitted_on.number("ttft_mape_pct");
  c.tpot_mape_pct = fitted_on.number("tpot_mape_pct");
  fitted_on.finish();
  if (g.has("held_out")) c.held_out = read_held_out(g);
  g.finish();
  return c;
}

nlohmann::ordered_json fitted_json(const FittedValue& v) {
  return {{"value", v.value}, {"stderr", v.stderr_value}};
}

// The base model's step with each class scaled and the CPU overhead replaced.
class CalibratedStepModel final : public StepTimeModel {
 public:
  CalibratedStepModel(std::shared_ptr<const StepTimeModel> base, const Calibration& calibration,
                      int64_t num_layers)
      : base_(std::move(base)),
        calibration_(calibration),
        prefill_host_s_(calibration.prefill_host_per_layer_s.value *
                        static_cast<double>(num_layers)) {
    for (int i = 0; i < kNumOpClasses; ++i) {
      ScaledClass scaled;
      const OpClass op = static_cast<OpClass>(i);
      scale_[static_cast<size_t>(i)] =
          scaled_class_of(op, &scaled) ? calibration.scale(scaled) : 1.0;
    }
    scale_[static_cast<size_t>(OpClass::cpu_overhead)] = 0.0;  // replaced below
  }

  double step_seconds(std::span<const SeqWork> batch) const override {
    return breakdown(batch).total_seconds();
  }

  double swap_seconds(int64_t num_blocks) const override { return base_->swap_seconds(num_blocks); }

  StepBreakdown breakdown(std::span<const SeqWork> batch) const override {
    StepBreakdown step = base_->breakdown(batch);
    int64_t num_seqs = 0;
    bool has_prefill = false;  // a sequence computes more tokens than it samples
    for (const SeqWork& seq : batch) {
      num_seqs += seq.num_new_tokens > 0 ? 1 : 0;
      has_prefill = has_prefill || seq.num_new_tokens > std::max<int64_t>(seq.num_logit_rows, 1);
    }
    if (num_seqs == 0) return StepBreakdown{};
    for (int i = 0; i < kNumOpClasses; ++i)
      step.seconds[static_cast<size_t>(i)] *= scale_[static_cast<size_t>(i)];
    step[OpClass::cpu_overhead] = 0.0;
    const double gpu_s = step.total_seconds();
    const double launch_excess_s = has_prefill ? std::max(0.0, prefill_host_s_ - gpu_s) : 0.0;
    step[OpClass::cpu_overhead] =
        calibration_.step_overhead_base_s.value +
        calibration_.step_overhead_per_seq_s.value * static_cast<double>(num_seqs) +
        launch_excess_s;
    return step;
  }

 private:
  std::shared_ptr<const StepTimeModel> base_;
  Calibration calibration_;
  double prefill_host_s_;                      // host launch time of a prefill step
  std::array<double, kNumOpClasses> scale_{};  // [op class]
};

}  // namespace

bool scaled_class_of(OpClass op, ScaledClass* scaled) {
  switch (op) {
    case OpClass::qkv_proj:
    case OpClass::o_proj:
    case OpClass::mlp_up_gate:
    case OpClass::mlp_down:
    case OpClass::moe_router:
    case OpClass::moe_experts:
    case OpClass::lm_head:
      *scaled = ScaledClass::gemm;
      return true;
    case OpClass::attention_prefill:
    case OpClass::attention_decode:
      *scaled = ScaledClass::attention;
      return true;
    case OpClass::allreduce:
      *scaled = ScaledClass::communication;
      return true;
    default:
      return false;
  }
}

CalibrationFile load_calibration(const std::string& path) {
  const nlohmann::json root = read_json_file(path, "calibration file");
  JsonObjectReader top(root, path, "");
  if (top.string("format") != kFormat) {
    throw_json_error(path, "format", fmt::format("expected \"{}\"", kFormat));
  }
  CalibrationFile file;
  file.base_model = top.string("base_model");
  file.created = top.string("created");
  const nlohmann::json& groups = top.at("groups");
  top.finish();
  if (!groups.is_array() || groups.empty())
    throw_json_error(path, "groups", "must be a non-empty array");
  for (size_t i = 0; i < groups.size(); ++i) {
    JsonObjectReader g(groups[i], path, fmt::format("groups[{}]", i));
    file.groups.push_back(read_group(g));
  }
  return file;
}

std::string calibration_to_json_text(const CalibrationFile& file) {
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const Calibration& c : file.groups) {
    nlohmann::ordered_json scales;
    for (int i = 0; i < kNumScaledClasses; ++i) {
      scales[std::string(kScaledNames[static_cast<size_t>(i)])] =
          fitted_json(c.scales[static_cast<size_t>(i)]);
    }
    groups.push_back({{"engine", c.engine},
                      {"gpu", c.gpu},
                      {"step_overhead_base_s", fitted_json(c.step_overhead_base_s)},
                      {"step_overhead_per_seq_s", fitted_json(c.step_overhead_per_seq_s)},
                      {"frontend_per_request_s", fitted_json(c.frontend_per_request_s)},
                      {"prefill_host_per_layer_s", fitted_json(c.prefill_host_per_layer_s)},
                      {"scales", scales},
                      {"fitted_on",
                       {{"num_rows", c.num_rows},
                        {"models", c.models},
                        {"ttft_mape_pct", c.ttft_mape_pct},
                        {"tpot_mape_pct", c.tpot_mape_pct}}}});
    if (c.held_out) groups.back()["held_out"] = held_out_json(*c.held_out);
  }
  const nlohmann::ordered_json root{{"format", kFormat},
                                    {"base_model", file.base_model},
                                    {"created", file.created},
                                    {"groups", groups}};
  return root.dump(2) + "\n";
}

nlohmann::ordered_json held_out_json(const HeldOutFigures& h) {
  return {{"num_rows", h.num_rows},
          {"num_architectures", h.num_architectures},
          {"num_rows_unfinished", h.num_rows_unfinished},
          {"ttft_mape_pct", h.ttft_mape_pct},
          {"tpot_mape_pct", h.tpot_mape_pct},
          {"uncalibrated_ttft_mape_pct", h.uncalibrated_ttft_mape_pct},
          {"uncalibrated_tpot_mape_pct", h.uncalibrated_tpot_mape_pct}};
}

void save_calibration(const CalibrationFile& file, const std::string& path) {
  base::write_output_text(path, calibration_to_json_text(file));
}

const Calibration& find_calibration(const CalibrationFile& file, const std::string& engine,
                                    const std::string& gpu, const std::string& path,
                                    const std::string& json_path) {
  std::string held;
  for (const Calibration& c : file.groups) {
    if (c.engine == engine && c.gpu == gpu) return c;
    held += (held.empty() ? "" : ", ") + c.engine + " on " + c.gpu;
  }
  throw InputError(fmt::format("{}: {} holds no calibration for {} on {} (it holds: {})", json_path,
                               path, engine, gpu, held));
}

std::unique_ptr<StepTimeModel> make_calibrated_model(std::shared_ptr<const StepTimeModel> base,
                                                     const Calibration& calibration,
                                                     int64_t num_layers) {
  return std::make_unique<CalibratedStepModel>(std::move(base), calibration, num_layers);
}

}  // namespace tidal::perf
