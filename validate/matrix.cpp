#include "validate/matrix.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "base/input_error.h"
#include "base/output_files.h"
#include "engine/engine.h"
#include "engine/engine_config.h"
#include "models/presets.h"
#include "models/quantize_weights.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

const std::set<std::string> kCaseKeys{"name",
                                      "trace",
                                      "model",
                                      "backend",
                                      "weight_dtype",
                                      "policy",
                                      "max_num_seqs",
                                      "max_batched_tokens",
                                      "static_batch_size",
                                      "tp",
                                      "threads",
                                      "quant",
                                      "kv_dtype",
                                      "kv_blocks",
                                      "prefix_caching",
                                      "spec",
                                      "time_scale",
                                      "load",
                                      "length_scale",
                                      "max_requests",
                                      "repeat_engine",
                                      "seed"};

// One case's keys applied onto `options`; `where` is its JSON path.
void apply_keys(const nlohmann::json& obj, const std::string& where, const std::string& base_dir,
                ValidateOptions& options, std::string* name) {
  if (!obj.is_object()) throw InputError(fmt::format("{}: must be an object", where));
  for (const auto& [key, value] : obj.items()) {
    const std::string path = where + "." + key;
    if (!kCaseKeys.contains(key)) {
      throw InputError(
          fmt::format("{}: unknown key (known: name, trace, model, backend, weight_dtype, policy, "
                      "max_num_seqs, max_batched_tokens, static_batch_size, tp, "
                      "threads, quant, kv_dtype, kv_blocks, prefix_caching, spec, "
                      "time_scale, load, length_scale, max_requests, repeat_engine, "
                      "seed)",
                      path));
    }
    auto text = [&] {
      if (!value.is_string()) throw InputError(fmt::format("{}: must be a string", path));
      return value.get<std::string>();
    };
    auto integer = [&] {
      if (!value.is_number_integer()) throw InputError(fmt::format("{}: must be an integer", path));
      return value.get<int64_t>();
    };
    auto number = [&] {
      if (!value.is_number()) throw InputError(fmt::format("{}: must be a number", path));
      return value.get<double>();
    };
    auto boolean = [&] {
      if (!value.is_boolean()) throw InputError(fmt::format("{}: must be true or false", path));
      return value.get<bool>();
    };
    engine::EngineRunArgs& run = options.run;
    engine::EngineConfig& config = run.config;
    if (key == "name") {
      if (name != nullptr)
        *name = text();
      else
        throw InputError(fmt::format("{}: a name belongs to a case, not the defaults", path));
    } else if (key == "trace") {
      const fs::path trace(text());
      run.trace = trace.is_absolute() || base_dir.empty() ? trace.string()
                                                          : (fs::path(base_dir) / trace).string();
    } else if (key == "model") {
      run.model = text();
    } else if (key == "backend") {
      config.backend = engine::parse_backend_kind(text(), path);
    } else if (key == "weight_dtype") {
      config.quant = models::apply_weight_dtype(config.quant, text(), path);
    } else if (key == "policy") {
      config.scheduler.policy = text();
    } else if (key == "max_num_seqs") {
      config.scheduler.max_num_seqs = static_cast<int32_t>(integer());
    } else if (key == "max_batched_tokens") {
      config.scheduler.max_num_batched_tokens = integer();
    } else if (key == "static_batch_size") {
      config.scheduler.static_batch_size = static_cast<int32_t>(integer());
    } else if (key == "tp") {
      config.tp = static_cast<int32_t>(integer());
    } else if (key == "threads") {
      config.num_threads = static_cast<int32_t>(integer());
    } else if (key == "quant") {
      config.quant = models::parse_quant_spec(text(), path);
    } else if (key == "kv_dtype") {
      config.kv_dtype = engine::parse_kv_dtype(text(), path);
    } else if (key == "kv_blocks") {
      config.num_gpu_blocks = integer();
    } else if (key == "prefix_caching") {
      config.enable_prefix_caching = boolean();
    } else if (key == "spec") {
      config.spec = engine::parse_spec_config(text(), path);
    } else if (key == "time_scale") {
      run.replay.time_scale = number();
    } else if (key == "load") {
      options.load = number();
    } else if (key == "length_scale") {
      run.replay.length_scale = number();
    } else if (key == "max_requests") {
      run.replay.max_requests = integer();
    } else if (key == "repeat_engine") {
      options.repeat_engine = boolean();
    } else if (key == "seed") {
      config.seed = static_cast<uint64_t>(integer());
    }
  }
}

// Cases sharing this key share one measured profile (same model, parallelism, formats,
// profiled grid ranges, and the batching policy and prefix caching its CPU-overhead waves run).
std::string profile_key(const ValidateOptions& o) {
  const engine::EngineConfig& c = o.run.config;
  const profile::ProfileOptions po = profile_options_for(o);
  return fmt::format("{}{}-tp{}-t{}-{}-{}-b{}-s{}-n{}-{}{}",
                     c.backend == engine::BackendKind::cuda ? "cuda-" : "",
                     fs::path(o.run.model).filename().string(), c.tp, c.num_threads,
                     models::quant_spec_name(c.quant), kernels::kv_dtype_name(c.kv_dtype),
                     c.block_size, po.max_batch_size, po.max_num_tokens, c.scheduler.policy,
                     c.enable_prefix_caching ? "-pc" : "");
}

std::string cell_pct(const nlohmann::ordered_json& v) {
  return v.is_null() ? std::string("n/a") : fmt::format("{:+.1f}", v.get<double>());
}

}  // namespace

std::string targets_summary(const nlohmann::ordered_json& cases, const std::string& heading) {
  const std::array<std::pair<const char*, const char*>, 4> targets{{
      {"step_median", "step median < 3%"},
      {"step_p90", "step p90 < 8%"},
      {"request_means", "TTFT/TPOT/E2E means within 5%"},
      {"request_p99", "their p99 within 10%"},
  }};
  std::string out = "\n" + heading + ":";
  for (const auto& [key, words] : targets) {
    int num_cases = 0;
    int num_held = 0;
    std::string misses;
    for (const auto& r : cases) {
      if (!r.contains("targets")) continue;
      ++num_cases;
      if (r["targets"][key].get<bool>()) {
        ++num_held;
      } else {
        misses += (misses.empty() ? "" : ", ") + r["case"].get<std::string>();
      }
    }
    out += fmt::format(" {} on {} of {}{};", words, num_held, num_cases,
                       misses.empty() ? "" : " (misses: " + misses + ")");
  }
  out.back() = '\n';
  return out;
}

Matrix load_matrix(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot read the file", path));
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  if (!root.is_object()) throw InputError(fmt::format("{}: must be a JSON object", path));
  for (const auto& [key, value] : root.items()) {
    if (key != "name" && key != "defaults" && key != "cases" && key != "description") {
      throw InputError(fmt::format(
          "{}: {}: unknown key (known: name, description, defaults, cases)", path, key));
    }
  }
  const std::string base_dir = fs::path(path).parent_path().string();
  Matrix matrix;
  matrix.name = root.value("name", fs::path(path).stem().string());
  ValidateOptions defaults;
  if (root.contains("defaults")) {
    apply_keys(root["defaults"], path + ": defaults", base_dir, defaults, nullptr);
  }
  if (!root.contains("cases") || !root["cases"].is_array() || root["cases"].empty()) {
    throw InputError(fmt::format("{}: cases: must be a non-empty array", path));
  }
  std::set<std::string> names;
  for (size_t i = 0; i < root["cases"].size(); ++i) {
    const std::string where = fmt::format("{}: cases[{}]", path, i);
    MatrixCase c{fmt::format("case{}", i), where, defaults};
    apply_keys(root["cases"][i], where, base_dir, c.options, &c.name);
    if (c.options.run.trace.empty()) throw InputError(where + ".trace: missing (required)");
    if (c.options.run.model.empty()) throw InputError(where + ".model: missing (required)");
    if (!names.insert(c.name).second) {
      throw InputError(fmt::format("{}.name: \"{}\" names an earlier case too", where, c.name));
    }
    c.options.title = c.name;
    matrix.cases.push_back(std::move(c));
  }
  return matrix;
}

namespace {

// Every case's engine config checked before anything runs (a bad last case must not fail after
// the others' profiles and engine runs), each error naming its case.
void check_matrix(const Matrix& matrix) {
  for (const MatrixCase& c : matrix.cases) {
    try {
      engine::check_config(c.options.run.config,
                           models::resolve_config(c.options.run.model, "model"));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{} (\"{}\"): {}", c.where, c.name, e.what()));
    }
  }
}

}  // namespace

MatrixResult run_matrix(const Matrix& matrix, const std::string& out_dir,
                        const profile::ProgressFn& progress) {
  check_matrix(matrix);
  const fs::path dir(out_dir);
  fs::create_directories(dir / "profiles");
  std::map<std::string, std::string> profiles;  // profile key -> measured profile path
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (size_t i = 0; i < matrix.cases.size(); ++i) {
    const MatrixCase& c = matrix.cases[i];
    progress(fmt::format("matrix: case {}/{}: {}", i + 1, matrix.cases.size(), c.name));
    ValidateOptions options = c.options;
    options.out_dir = (dir / c.name).string();
    const std::string key = profile_key(options);
    if (!profiles.contains(key)) {
      const std::string path = (dir / "profiles" / (key + ".json")).string();
      perf::save_profile(measure_profile(options, progress), path);
      profiles[key] = path;
    }
    options.profile_path = profiles[key];
    const ValidationResult result = run_validation(options, progress);
    progress(result.table);
    const nlohmann::ordered_json& j = result.json;
    auto err = [&](const char* metric, const char* stat) {
      return j["latency"][metric]["signed_error_pct"][stat];
    };
    nlohmann::ordered_json row = {
        {"case", c.name},
        {"folder", c.name},
        {"load", j["case"]["load"]},
        {"num_requests", j["case"]["num_requests"]},
        {"step_median_abs_error_pct", j["step_duration"]["median_abs_error_pct"]},
        {"step_p90_abs_error_pct", j["step_duration"]["p90_abs_error_pct"]},
        {"ttft_mean_error_pct", err("ttft", "mean")},
        {"ttft_p99_error_pct", err("ttft", "p99")},
        {"tpot_mean_error_pct", err("tpot", "mean")},
        {"tpot_p99_error_pct", err("tpot", "p99")},
        {"itl_mean_error_pct", err("itl", "mean")},
        {"e2e_mean_error_pct", err("e2e", "mean")},
        {"e2e_p99_error_pct", err("e2e", "p99")},
        {"ttft_ks", j["latency"]["ttft"]["ks_distance"]},
        {"e2e_ks", j["latency"]["e2e"]["ks_distance"]},
        {"throughput_error_pct", j["run"]["output_tokens_per_s"]["signed_error_pct"]},
        {"makespan_error_pct", j["run"]["makespan_s"]["signed_error_pct"]},
        {"noise_ttft_mean_pct", j["noise"].is_null()
                                    ? nlohmann::ordered_json()
                                    : j["noise"]["latency"]["ttft"]["signed_error_pct"]["mean"]},
        {"noise_e2e_mean_pct", j["noise"].is_null()
                                   ? nlohmann::ordered_json()
                                   : j["noise"]["latency"]["e2e"]["signed_error_pct"]["mean"]},
        {"engine_cpu_share", j["engine"]["cpu_share"]},
        {"engine_wall_s", j["engine"]["wall_s"]},
        {"engine_cpu_s",
         j["engine"]["cpu_share"].get<double>() * j["engine"]["wall_s"].get<double>()},
        {"step_measured_total_s", j["step_duration"]["measured_total_s"]},
        {"step_predicted_total_s", j["step_duration"]["predicted_total_s"]},
        {"targets", j["targets"]},
        {"notes", j["notes"]},
    };
    rows.push_back(row);
  }
  MatrixResult result;
  result.json = {{"kind", "tidal-validation-matrix"}, {"name", matrix.name}, {"cases", rows}};
  result.markdown = matrix_markdown(result.json);
  write_matrix_files(result, out_dir);
  return result;
}

void write_matrix_files(const MatrixResult& result, const std::string& out_dir) {
  base::write_output_text((fs::path(out_dir) / "matrix.json").string(), result.json.dump(2) + "\n");
  base::write_output_text((fs::path(out_dir) / "matrix.md").string(), result.markdown);
}

std::string matrix_markdown(const nlohmann::ordered_json& matrix_json) {
  std::string out =
      "| case | load | requests | step \\|err\\| p50 / p90 | TTFT mean / p99 | TPOT mean / p99 | "
      "ITL mean | E2E mean / p99 | KS TTFT / E2E | throughput | makespan | engine noise TTFT / "
      "E2E mean | engine CPU share | steps predicted / measured / engine CPU (s) |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : matrix_json["cases"]) {
    const std::string load =
        r["load"].is_null() ? std::string("-") : fmt::format("{:.2f}", r["load"].get<double>());
    out += fmt::format(
        "| {} | {} | {} | {:.1f}% / {:.1f}% | {} / {} | {} / {} | {} | {} / {} | {:.2f} / {:.2f} "
        "| {} | {} | {} / {} | {:.2f} | {:.3f} / {:.3f} / {:.3f} |\n",
        r["case"].get<std::string>(), load, r["num_requests"].get<int64_t>(),
        r["step_median_abs_error_pct"].get<double>(), r["step_p90_abs_error_pct"].get<double>(),
        cell_pct(r["ttft_mean_error_pct"]), cell_pct(r["ttft_p99_error_pct"]),
        cell_pct(r["tpot_mean_error_pct"]), cell_pct(r["tpot_p99_error_pct"]),
        cell_pct(r["itl_mean_error_pct"]), cell_pct(r["e2e_mean_error_pct"]),
        cell_pct(r["e2e_p99_error_pct"]), r["ttft_ks"].get<double>(), r["e2e_ks"].get<double>(),
        cell_pct(r["throughput_error_pct"]), cell_pct(r["makespan_error_pct"]),
        cell_pct(r["noise_ttft_mean_pct"]), cell_pct(r["noise_e2e_mean_pct"]),
        r["engine_cpu_share"].get<double>(), r["step_predicted_total_s"].get<double>(),
        r["step_measured_total_s"].get<double>(), r["engine_cpu_s"].get<double>());
  }
  out += targets_summary(matrix_json["cases"], "Targets held");
  out +=
      "\nErrors are the simulator's signed % error against the engine ((sim - engine) / "
      "engine); step |err| is per engine step, model vs measured duration on the same plan. "
      "Steps: the model's total over the engine's steps, their measured wall-clock total, and "
      "the CPU seconds the engine process got during the replay.\n";
  return out;
}

}  // namespace tidal::validate
