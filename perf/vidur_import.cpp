#include "perf/vidur_import.h"

#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/vidur_csv.h"

namespace tidal::perf {
namespace {

namespace fs = std::filesystem;

constexpr char kLegacy[] = "legacy_oss_release_6555c85";
constexpr double kSecondsPerMs = 1e-3;
constexpr double kBytesPerElement = 2.0;  // Vidur's collective sizes count fp16 elements

std::string median_column(std::string_view op) {
  return "time_stats." + std::string(op) + ".median";
}

// Averages values that share a key (Vidur files repeat some sizes), in key order.
template <typename Key>
class Averager {
 public:
  void add(Key key, double value) {
    auto& [sum, count] = sums_[key];
    sum += value;
    ++count;
  }
  std::vector<Key> keys() const {
    std::vector<Key> out;
    for (const auto& [key, sum_count] : sums_) out.push_back(key);
    return out;
  }
  std::vector<double> means() const {
    std::vector<double> out;
    for (const auto& [key, sum_count] : sums_) out.push_back(sum_count.first / sum_count.second);
    return out;
  }
  bool empty() const { return sums_.empty(); }

 private:
  std::map<Key, std::pair<double, int64_t>> sums_;
};

fs::path find_model_dir(const fs::path& gpu_dir, std::string_view model_dir_name,
                        std::string* org) {
  if (!fs::is_directory(gpu_dir)) {
    throw InputError(gpu_dir.string() + ": no such folder (expected Vidur's compute/<gpu>/)");
  }
  std::set<std::string> orgs;  // sorted, for determinism
  for (const auto& entry : fs::directory_iterator(gpu_dir)) {
    if (entry.is_directory()) orgs.insert(entry.path().filename().string());
  }
  std::string known;
  for (const std::string& candidate : orgs) {
    for (const auto& entry : fs::directory_iterator(gpu_dir / candidate)) {
      const std::string name = entry.path().filename().string();
      if (name == model_dir_name) {
        *org = candidate;
        return entry.path();
      }
    }
  }
  for (const std::string& candidate : orgs) {
    std::set<std::string> models;
    for (const auto& entry : fs::directory_iterator(gpu_dir / candidate)) {
      models.insert(entry.path().filename().string());
    }
    for (const std::string& m : models) known += (known.empty() ? "" : ", ") + m;
  }
  throw InputError(fmt::format("{}: no model folder \"{}\"; available: {}", gpu_dir.string(),
                               model_dir_name, known));
}

struct MlpImport {
  ProfileModel model;
  std::map<OpClass, OperatorTable> operators;
};

MlpImport import_mlp(const std::string& path, std::string_view model_name, int32_t tp) {
  const CsvTable csv = CsvTable::read(path);
  const std::size_t tp_col = csv.column("num_tensor_parallel_workers");
  const std::size_t tokens_col = csv.column("num_tokens");
  // tidal op class <- Vidur ops summed (with multiplicity).
  struct Mapping {
    OpClass op;
    OpScope scope;
    std::vector<std::pair<std::string, double>> parts;
  };
  std::vector<Mapping> mappings = {
      {OpClass::embedding, OpScope::step, {{"emb", 1.0}}},
      {OpClass::norm,
       OpScope::layer,
       {{"input_layernorm", 1.0}, {"post_attention_layernorm", 1.0}}},
      {OpClass::qkv_proj, OpScope::layer, {{"attn_pre_proj", 1.0}}},
      {OpClass::rope, OpScope::layer, {{"attn_rope", 1.0}}},
      {OpClass::o_proj, OpScope::layer, {{"attn_post_proj", 1.0}}},
      {OpClass::mlp_up_gate, OpScope::layer, {{"mlp_up_proj", 1.0}}},
      {OpClass::mlp_act, OpScope::layer, {{"mlp_act", 1.0}}},
      {OpClass::mlp_down, OpScope::layer, {{"mlp_down_proj", 1.0}}},
      // Vidur times one residual add; a layer has two.
      {OpClass::residual_add, OpScope::layer, {{"add", 2.0}}},
  };
  std::set<int64_t> tps_available;
  std::map<OpClass, Averager<int64_t>> tables;
  MlpImport out;
  bool have_dims = false;
  for (std::size_t row = 0; row < csv.num_rows(); ++row) {
    const int64_t row_tp = csv.integer(row, tp_col);
    tps_available.insert(row_tp);
    if (row_tp != tp) continue;
    ProfileModel dims;
    dims.name = std::string(model_name);
    dims.num_heads = csv.integer(row, csv.column("n_head"));
    dims.num_kv_heads = csv.integer(row, csv.column("n_kv_head"));
    dims.hidden = csv.integer(row, csv.column("n_embd"));
    dims.intermediate = csv.integer(row, csv.column("n_expanded_embd"));
    dims.vocab = csv.integer(row, csv.column("vocab_size"));
    const std::string& gated = csv.cell(row, csv.column("use_gated_mlp"));
    if (gated != "True" && gated != "False") {
      throw InputError(
          fmt::format("{}: row {}: use_gated_mlp: expected True or False", path, row + 2));
    }
    dims.gated_mlp = gated == "True";
    if (!have_dims) {
      out.model = dims;
      have_dims = true;
    } else if (!(dims == out.model)) {
      throw InputError(path + ": model dimensions differ between rows");
    }
    const int64_t num_tokens = csv.integer(row, tokens_col);
    for (const Mapping& mapping : mappings) {
      double ms = 0.0;
      for (const auto& [vidur_op, multiplicity] : mapping.parts) {
        if (!csv.has_column(median_column(vidur_op))) continue;  // phi-2 has one layernorm
        ms += multiplicity * csv.number(row, csv.column(median_column(vidur_op)));
      }
      tables[mapping.op].add(num_tokens, ms * kSecondsPerMs);
    }
  }
  if (!have_dims) {
    std::string known;
    for (int64_t t : tps_available) known += (known.empty() ? "" : ", ") + std::to_string(t);
    throw InputError(fmt::format(
        "{}: no rows with num_tensor_parallel_workers == {} (available: {})", path, tp, known));
  }
  for (const Mapping& mapping : mappings) {
    OperatorTable table;
    table.scope = mapping.scope;
    table.source = TimeSource::measured;
    table.num_tokens = tables[mapping.op].keys();
    table.seconds = tables[mapping.op].means();
    out.operators.emplace(mapping.op, std::move(table));
  }
  // Vidur does not profile the LM head or sampling.
  out.operators.emplace(OpClass::lm_head,
                        OperatorTable{OpScope::step, TimeSource::roofline, {}, {}});
  out.operators.emplace(OpClass::sampling,
                        OperatorTable{OpScope::step, TimeSource::roofline, {}, {}});
  return out;
}

// Fills a dense [rows, cols] grid from averaged cells. A missing cell (Vidur measured prefill only
// where chunk + context <= max_model_len) takes the last measured cell of its row scaled by the
// attention work ratio (chunk * (context + (chunk + 1) / 2)); rows with no cell are an error.
std::vector<double> dense_grid(const std::map<std::pair<int64_t, int64_t>, double>& cells,
                               const std::vector<int64_t>& rows, const std::vector<int64_t>& cols,
                               bool prefill, const std::string& path, int64_t* num_filled) {
  std::vector<double> values(rows.size() * cols.size(), 0.0);  // [num_rows, num_cols]
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::size_t last = cols.size();
    for (std::size_t j = 0; j < cols.size(); ++j) {
      auto it = cells.find({rows[i], cols[j]});
      if (it != cells.end()) {
        values[i * cols.size() + j] = it->second;
        last = j;
        continue;
      }
      if (last == cols.size()) {
        throw InputError(fmt::format("{}: no measurement for {} {} at context {} or below", path,
                                     prefill ? "chunk" : "batch", rows[i], cols[j]));
      }
      const double chunk = prefill ? static_cast<double>(rows[i]) : 1.0;
      auto work = [&](int64_t context) {
        return chunk * (static_cast<double>(context) + (chunk + 1.0) / 2.0);
      };
      values[i * cols.size() + j] =
          values[i * cols.size() + last] * work(cols[j]) / work(cols[last]);
      ++*num_filled;
    }
  }
  return values;
}

// The legacy A100 attention table: Llama-2-70B / CodeLlama-34B shape at TP 2.
AttentionTables import_attention(const std::string& path, const std::string& relative_path,
                                 std::string* note) {
  const CsvTable csv = CsvTable::read(path);
  const std::size_t prefill_col = csv.column("is_prefill");
  const std::size_t batch_col = csv.column("batch_size");
  const std::size_t chunk_col = csv.column("prefill_chunk_size");
  const std::size_t context_col = csv.column("kv_cache_size");
  const std::size_t in_col = csv.column(median_column("attn_input_reshape"));
  const std::size_t out_col = csv.column(median_column("attn_output_reshape"));
  const std::size_t pre_col = csv.column(median_column("attn_prefill"));
  const std::size_t dec_col = csv.column(median_column("attn_decode"));
  Averager<std::pair<int64_t, int64_t>> prefill;
  Averager<std::pair<int64_t, int64_t>> decode;
  for (std::size_t row = 0; row < csv.num_rows(); ++row) {
    const bool is_prefill = csv.cell(row, prefill_col) == "True";
    const double reshape_ms = csv.number(row, in_col) + csv.number(row, out_col);
    const int64_t context = csv.integer(row, context_col);
    if (is_prefill) {
      if (csv.integer(row, batch_col) != 1) continue;  // the table holds single-sequence chunks
      prefill.add({csv.integer(row, chunk_col), context},
                  (csv.number(row, pre_col) + reshape_ms) * kSecondsPerMs);
    } else {
      decode.add({csv.integer(row, batch_col), context},
                 (csv.number(row, dec_col) + reshape_ms) * kSecondsPerMs);
    }
  }
  auto axes = [](const Averager<std::pair<int64_t, int64_t>>& cells, std::vector<int64_t>* rows,
                 std::vector<int64_t>* cols, std::map<std::pair<int64_t, int64_t>, double>* map) {
    std::set<int64_t> row_set;
    std::set<int64_t> col_set;
    const auto keys = cells.keys();
    const auto means = cells.means();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      row_set.insert(keys[i].first);
      col_set.insert(keys[i].second);
      map->emplace(keys[i], means[i]);
    }
    rows->assign(row_set.begin(), row_set.end());
    cols->assign(col_set.begin(), col_set.end());
  };
  AttentionTables tables;
  std::map<std::pair<int64_t, int64_t>, double> prefill_cells;
  std::map<std::pair<int64_t, int64_t>, double> decode_cells;
  axes(prefill, &tables.prefill_chunk_tokens, &tables.prefill_context_tokens, &prefill_cells);
  axes(decode, &tables.decode_batch_sizes, &tables.decode_context_tokens, &decode_cells);
  int64_t num_prefill_filled = 0;
  int64_t num_decode_filled = 0;
  tables.prefill_seconds =
      dense_grid(prefill_cells, tables.prefill_chunk_tokens, tables.prefill_context_tokens, true,
                 path, &num_prefill_filled);
  tables.decode_seconds = dense_grid(decode_cells, tables.decode_batch_sizes,
                                     tables.decode_context_tokens, false, path, &num_decode_filled);
  *note = fmt::format(
      "attention from {} (attn_prefill/attn_decode + input/output reshape, medians); {} of {} "
      "prefill cells and {} of {} decode cells beyond the measured context were scaled from the "
      "last measured context by attention work",
      relative_path, num_prefill_filled, tables.prefill_seconds.size(), num_decode_filled,
      tables.decode_seconds.size());
  return tables;
}

AllReduceTable import_allreduce(const std::string& path, int32_t tp) {
  const CsvTable csv = CsvTable::read(path);
  const std::size_t workers_col = csv.column("num_workers");
  const std::size_t node_col = csv.column("devices_per_node");
  const std::size_t collective_col = csv.column("collective");
  const std::size_t size_col = csv.column("size");
  const std::size_t time_col = csv.column(median_column("all_reduce"));
  Averager<double> sizes;
  for (std::size_t row = 0; row < csv.num_rows(); ++row) {
    if (csv.cell(row, collective_col) != "all_reduce") continue;
    // All workers on one node: the TP group of one replica.
    if (csv.integer(row, workers_col) != tp || csv.integer(row, node_col) != tp) continue;
    sizes.add(csv.number(row, size_col) * kBytesPerElement,
              csv.number(row, time_col) * kSecondsPerMs);
  }
  if (sizes.empty()) {
    throw InputError(
        fmt::format("{}: no all_reduce rows with num_workers == devices_per_node == {}", path, tp));
  }
  return {TimeSource::measured, sizes.keys(), sizes.means()};
}

// Sum of the medians of the per-step CPU stages tidal's engine also has; Ray communication is
// left out (tidal runs no Ray workers). Empty when the file has no rows for this model and TP.
CpuOverheadTable import_cpu_overhead(const std::string& path, const std::string& hf_name,
                                     int32_t tp) {
  const CsvTable csv = CsvTable::read(path);
  const std::size_t model_col = csv.column("model_name");
  const std::size_t tp_col = csv.column("tensor_parallel_degree");
  const std::size_t batch_col = csv.column("batch_size");
  const std::vector<std::size_t> stage_cols = {
      csv.column("schedule_median"), csv.column("sampler_e2e_median"),
      csv.column("prepare_inputs_e2e_median"), csv.column("process_model_outputs_median")};
  Averager<int64_t> batches;
  for (std::size_t row = 0; row < csv.num_rows(); ++row) {
    if (csv.cell(row, model_col) != hf_name || csv.integer(row, tp_col) != tp) continue;
    double ms = 0.0;
    for (std::size_t col : stage_cols) ms += csv.number(row, col);
    batches.add(csv.integer(row, batch_col), ms * kSecondsPerMs);
  }
  if (batches.empty()) return {};
  return {TimeSource::measured, batches.keys(), batches.means()};
}

}  // namespace

Profile import_vidur(const std::string& vidur_dir, std::string_view gpu,
                     std::string_view model_dir_name, int32_t tp) {
  if (gpu != "a100" && gpu != "a40" && gpu != "h100") {
    throw InputError(
        fmt::format("vidur gpu: unknown label \"{}\"; expected a100, a40 or h100", gpu));
  }
  if (tp < 1) throw InputError(fmt::format("vidur tp: must be >= 1 (got {})", tp));
  const fs::path root(vidur_dir);
  std::string org;
  const fs::path model_dir =
      find_model_dir(root / "compute" / std::string(gpu), model_dir_name, &org);
  const std::string mlp_path = (model_dir / "mlp.csv").string();
  // Provenance names files relative to vidur_dir, so the profile does not depend on where the
  // data lies on this machine.
  auto relative = [&](const fs::path& file) { return file.lexically_relative(root).string(); };
  const std::string hf_name = org + "/" + std::string(model_dir_name);

  Profile profile;
  MlpImport mlp = import_mlp(mlp_path, hf_name, tp);
  profile.model = mlp.model;
  profile.operators = std::move(mlp.operators);
  profile.tp = tp;
  profile.weight_dtype = DType::fp16;
  profile.kv_dtype = DType::fp16;
  std::vector<std::string> notes = {
      "operators from " + relative(model_dir / "mlp.csv") +
      " (median column, ms -> s, duplicate num_tokens averaged, residual_add = 2 x add; "
      "lm_head and sampling not profiled by Vidur: roofline)"};

  const ProfileModel& m = profile.model;
  if (gpu == "a100" && tp == 2 && m.hidden == 8192 && m.num_heads == 64 && m.num_kv_heads == 8) {
    std::string note;
    const fs::path attention_file = root / kLegacy / "a100" / "attention.csv";
    profile.attention = import_attention(attention_file.string(), relative(attention_file), &note);
    profile.attention_source = TimeSource::measured;
    notes.push_back(note);
  } else {
    profile.attention_source = TimeSource::roofline;
    notes.push_back("attention: no Vidur table for this GPU, shape and TP; roofline");
  }

  if (tp > 1) {
    const fs::path network =
        gpu == "a40" ? root / kLegacy / "a40" / "all_reduce.csv"
                     : root / "network" / (std::string(gpu) + "_dgx") / "all_reduce.csv";
    profile.allreduce = import_allreduce(network.string(), tp);
    notes.push_back("allreduce from " + relative(network) +
                    " (num_workers == devices_per_node == tp, size x 2 bytes)");
  } else {
    profile.allreduce = {};
    notes.push_back("allreduce: tp 1 has none");
  }

  // CPU overheads are host-side; Vidur published them for A100 (CodeLlama-34B TP 2) and for an
  // A40 node (six models). Prefer the GPU's own file, then the A40 file, then the roofline default.
  std::vector<fs::path> cpu_files;
  if (gpu == "a100") cpu_files.push_back(root / kLegacy / "a100" / "cpu_overheads.csv");
  cpu_files.push_back(root / kLegacy / "a40" / "cpu_overheads.csv");
  profile.cpu_overhead = {};
  for (const fs::path& file : cpu_files) {
    CpuOverheadTable table = import_cpu_overhead(file.string(), hf_name, tp);
    if (table.source == TimeSource::measured) {
      profile.cpu_overhead = std::move(table);
      notes.push_back("cpu_overhead from " + relative(file) +
                      " (medians of schedule + sampler_e2e + prepare_inputs_e2e + "
                      "process_model_outputs; measured on that node's host)");
      break;
    }
  }
  if (profile.cpu_overhead.source == TimeSource::roofline) {
    notes.push_back("cpu_overhead: no Vidur rows for this model and TP; roofline default");
  }

  profile.provenance.backend = "vidur";
  profile.provenance.device = std::string(gpu);
  profile.provenance.date = "2024-11-19";
  profile.provenance.commit =
      "microsoft/vidur 7d47513363ec447a741ac5e47241580b47724fbf (legacy files: "
      "6555c85936d8ecf913622dbb5f8c9a96175126ab)";
  std::string source;
  for (const std::string& note : notes) source += (source.empty() ? "" : "; ") + note;
  profile.provenance.source = source;
  validate_profile(profile, "vidur import " + mlp_path);
  return profile;
}

}  // namespace tidal::perf
