#include "validate/measured_runs.h"

#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/csv_split.h"
#include "base/field_parse.h"
#include "base/input_error.h"
#include "base/row_error.h"
#include "perf/json_reader.h"
#include "validate/measured_id_layout.h"

namespace tidal::validate {
namespace {

// measured.csv's `system` names and the GPU catalog's (perf/catalog/gpus.json).
const std::map<std::string, std::string>& system_gpus() {
  static const std::map<std::string, std::string> gpus{
      {"a100_sxm", "A100-80GB"}, {"h100_sxm", "H100-SXM"}, {"h200_sxm", "H200"},
      {"b200_sxm", "B200"},      {"b300_sxm", "B300"},     {"gb200", "GB200"},
      {"gb300", "GB300"}};
  return gpus;
}

// Parallelism of a part the run does not use: empty, or 0 in a few dense-model rows; both mean 1.
int64_t optional_count(std::string_view text, std::string_view field) {
  if (text.empty()) return 1;
  const int64_t value = base::parse_int64(text, field);
  return value == 0 ? 1 : value;
}

int64_t positive(int64_t value, std::string_view field) {
  if (value < 1) throw base::RowError(field, fmt::format("must be >= 1 (got {})", value));
  return value;
}

// The columns of one side of a disaggregated run (`prefix` "prefill_" or "decode_"), -1 absent.
struct LayoutColumns {
  int num_workers, tp, pp, attention_dp, moe_tp, moe_ep, batch_size;
  LayoutColumns(const base::CsvColumns& columns, const std::string& prefix)
      : num_workers(columns.find(prefix + "num_workers")),
        tp(columns.find(prefix + "tp_size")),
        pp(columns.find(prefix + "pp_size")),
        attention_dp(columns.find(prefix + "attention_dp_size")),
        moe_tp(columns.find(prefix + "moe_tp_size")),
        moe_ep(columns.find(prefix + "moe_ep_size")),
        batch_size(columns.find(prefix + "batch_size")) {}

  // Required together in a disaggregated row; RowError naming the first missing or bad one.
  WorkerLayout read(const std::vector<std::string_view>& fields, const std::string& prefix) const {
    const auto field = [&](int index, const char* name) -> std::string_view {
      if (index < 0) throw base::RowError(prefix + name, "missing column (mode disagg needs it)");
      return fields[static_cast<size_t>(index)];
    };
    const auto count = [&](int index, const char* name) {
      const std::string column = prefix + name;
      return positive(optional_count(field(index, name), column), column);
    };
    WorkerLayout layout;
    // Most published disaggregated rows leave the worker counts out: 0, not expressible.
    const std::string workers = prefix + "num_workers";
    const std::string_view workers_text = field(num_workers, "num_workers");
    layout.num_workers =
        workers_text.empty() ? 0 : positive(base::parse_int64(workers_text, workers), workers);
    layout.tp = count(tp, "tp_size");
    layout.pp = count(pp, "pp_size");
    layout.attention_dp = count(attention_dp, "attention_dp_size");
    layout.moe_tp = count(moe_tp, "moe_tp_size");
    layout.moe_ep = count(moe_ep, "moe_ep_size");
    // Optional: a file without the column, or a row leaving it empty, does not cap the batch.
    if (batch_size >= 0 && !fields[static_cast<size_t>(batch_size)].empty()) {
      const std::string column = prefix + "batch_size";
      layout.max_batch_size =
          positive(base::parse_int64(fields[static_cast<size_t>(batch_size)], column), column);
    }
    return layout;
  }
};

double positive_ms(std::string_view text, std::string_view field) {
  const double value = base::parse_finite_double(text, field);
  if (!(value > 0.0)) throw base::RowError(field, fmt::format("must be > 0 (got {})", value));
  return value;
}

}  // namespace

std::vector<MeasuredRun> read_measured_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read measured runs");
  std::string line;
  if (!std::getline(in, line)) throw InputError(path + ": empty file (expected a header)");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  base::CsvColumns columns;
  std::vector<std::string_view> fields;
  std::string scratch;
  int64_t line_number = 1;
  std::vector<MeasuredRun> runs;
  try {
    columns.read_header(line);
    const auto col = [&](const char* name) { return static_cast<size_t>(columns.require(name)); };
    const size_t id = col("id"), backend = col("backend"), version = col("backend_version"),
                 model = col("model_path"), system = col("system"), precision = col("precision"),
                 mode = col("mode"), isl = col("isl"), osl = col("osl"),
                 gemm_quant = col("gemm_quant_mode"), moe_quant = col("moe_quant_mode"),
                 tp = col("tp_size"), pp = col("pp_size"), attention_dp = col("attention_dp_size"),
                 moe_tp = col("moe_tp_size"), moe_ep = col("moe_ep_size"),
                 ttft = col("silicon_ttft_ms"), tpot = col("silicon_tpot_ms"),
                 concurrency = col("concurrency");
    const LayoutColumns prefill_columns(columns, "prefill_");
    const LayoutColumns decode_columns(columns, "decode_");
    while (std::getline(in, line)) {
      ++line_number;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      base::split_csv(line, fields, scratch);
      columns.check_row_width(fields);
      MeasuredRun r;
      r.where = fmt::format("{}:{}", path, line_number);
      r.id = std::string(fields[id]);
      r.engine = std::string(fields[backend]);
      r.engine_version = std::string(fields[version]);
      r.model = std::string(fields[model]);
      r.system = std::string(fields[system]);
      r.precision = std::string(fields[precision]);
      r.gemm_quant_mode = std::string(fields[gemm_quant]);
      r.moe_quant_mode = std::string(fields[moe_quant]);
      r.mode = std::string(fields[mode]);
      if (r.mode != "agg" && r.mode != "disagg") {
        throw base::RowError("mode", fmt::format("\"{}\" is neither agg nor disagg", r.mode));
      }
      r.isl = positive(base::parse_int64(fields[isl], "isl"), "isl");
      r.osl = positive(base::parse_int64(fields[osl], "osl"), "osl");
      // A few rows do not say how many clients ran: 0, and not expressible.
      r.concurrency =
          fields[concurrency].empty()
              ? 0
              : positive(base::parse_int64(fields[concurrency], "concurrency"), "concurrency");
      if (r.mode == "agg") {
        r.tp = positive(base::parse_int64(fields[tp], "tp_size"), "tp_size");
        r.pp = positive(optional_count(fields[pp], "pp_size"), "pp_size");
        r.attention_dp = positive(optional_count(fields[attention_dp], "attention_dp_size"),
                                  "attention_dp_size");
        r.moe_tp = positive(optional_count(fields[moe_tp], "moe_tp_size"), "moe_tp_size");
        r.moe_ep = positive(optional_count(fields[moe_ep], "moe_ep_size"), "moe_ep_size");
        r.layout_unmultiplied = undo_multiplied_layout(r);
      } else {
        r.prefill = prefill_columns.read(fields, "prefill_");
        r.decode = decode_columns.read(fields, "decode_");
      }
      r.ttft_ms = positive_ms(fields[ttft], "silicon_ttft_ms");
      r.tpot_ms = positive_ms(fields[tpot], "silicon_tpot_ms");
      runs.push_back(std::move(r));
    }
  } catch (const base::RowError& e) {
    throw InputError(fmt::format("{}:{}: {}: {}", path, line_number, e.field(), e.what()));
  }
  if (runs.empty()) throw InputError(path + ": no measured rows");
  return runs;
}

std::vector<MeasuredRun> read_vllm_bench_json(const std::string& path,
                                              const MeasuredRun& defaults) {
  const nlohmann::json root = perf::read_json_file(path, "vllm bench result");
  const auto number = [&](const char* key) {
    const auto it = root.find(key);
    if (it == root.end() || !it->is_number()) {
      throw InputError(fmt::format("{}: {}: missing or not a number", path, key));
    }
    return it->get<double>();
  };
  // Lengths: the per-request lists when saved (--save-detailed), else the random dataset's.
  const auto mean_length = [&](const char* list_key, const char* fixed_key) {
    const auto list = root.find(list_key);
    if (list != root.end() && list->is_array() && !list->empty()) {
      double sum = 0.0;
      for (const auto& v : *list) sum += v.get<double>();
      return static_cast<int64_t>(std::llround(sum / static_cast<double>(list->size())));
    }
    return static_cast<int64_t>(number(fixed_key));
  };
  MeasuredRun r = defaults;
  r.where = path;
  r.id = std::filesystem::path(path).stem().string();
  r.mode = "agg";
  r.ttft_ms = number("mean_ttft_ms");
  r.tpot_ms = number("mean_tpot_ms");
  r.concurrency = static_cast<int64_t>(number("max_concurrency"));
  r.isl = mean_length("input_lens", "random_input_len");
  r.osl = mean_length("output_lens", "random_output_len");
  if (r.ttft_ms <= 0 || r.tpot_ms <= 0 || r.concurrency < 1 || r.isl < 1 || r.osl < 1) {
    throw InputError(path + ": latencies, max_concurrency and lengths must be positive");
  }
  return {r};
}

std::string left_out_key(const std::string& reason) {
  return reason.substr(0, reason.find(" ("));
}

std::string no_expressible_row_error(const std::string& path, size_t num_read,
                                     const std::map<std::string, int64_t>& left_out) {
  std::string reasons;
  for (const auto& [reason, count] : left_out) {
    reasons += fmt::format("{}{} x {}", reasons.empty() ? "" : "; ", count, reason);
  }
  return fmt::format("{}: no row tidal can express ({} read; left out: {})", path, num_read,
                     reasons);
}

std::optional<std::string> inexpressible_reason(const MeasuredRun& run) {
  if (run.concurrency < 1) return "no concurrency given";
  if (run.pp > 1) return fmt::format("pipeline parallelism (pp {})", run.pp);
  if (run.mode == "disagg" && (run.prefill.num_workers < 1 || run.decode.num_workers < 1)) {
    return "disaggregated row without its prefill and decode worker counts";
  }
  if (run.prefill.pp > 1 || run.decode.pp > 1) {
    return fmt::format("pipeline parallelism (prefill pp {}, decode pp {})", run.prefill.pp,
                       run.decode.pp);
  }
  if (gpu_of_system(run.system).empty()) return "GPU system \"" + run.system + "\" unknown";
  return std::nullopt;
}

std::string gpu_of_system(const std::string& system) {
  const auto it = system_gpus().find(system);
  return it == system_gpus().end() ? "" : it->second;
}

}  // namespace tidal::validate
