#include "perf/kernel_db_tables.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/kernel_db_csv.h"
#include "perf/kernel_db_policy.h"

namespace tidal::perf {
namespace {

constexpr double kSecondsPerMs = 1e-3;

// Rows measuring one shape at one size, merged by the rule of kernel_db_policy.h: the fastest
// row of the folder's own version, or of any version when the own has none.
template <typename Key>
class RepeatMerger {
 public:
  void add(const Key& key, bool own_version, double seconds) {
    Fastest& f = rows_[key];
    double& best = own_version ? f.own : f.other;
    best = std::min(best, seconds);
  }

  std::map<Key, double> merged() const {
    std::map<Key, double> out;
    for (const auto& [key, f] : rows_) out.emplace(key, f.own < kNone ? f.own : f.other);
    return out;
  }

 private:
  static constexpr double kNone = std::numeric_limits<double>::infinity();
  struct Fastest {
    double own = kNone;
    double other = kNone;
  };
  std::map<Key, Fastest> rows_;  // (shape, size) -> fastest rows
};

// Curves from merged (shape, size) -> seconds entries, in key order (a shape's sizes ascending).
template <typename Shape>
std::map<Shape, MeasuredCurve> curves_by_shape(
    const std::map<std::pair<Shape, int64_t>, double>& merged) {
  std::map<Shape, MeasuredCurve> out;
  auto it = merged.begin();
  while (it != merged.end()) {
    const Shape& shape = it->first.first;
    std::vector<double> sizes;    // [num_points]
    std::vector<double> seconds;  // [num_points]
    for (; it != merged.end() && it->first.first == shape; ++it) {
      sizes.push_back(static_cast<double>(it->first.second));
      seconds.push_back(it->second);
    }
    out.emplace(shape, MeasuredCurve(std::move(sizes), std::move(seconds)));
  }
  return out;
}

using AttentionPoint = std::tuple<AttentionKey, int64_t, int64_t>;  // shape, batch, length

std::map<AttentionKey, CurveGrid> grids_by_shape(const std::map<AttentionPoint, double>& merged) {
  std::map<AttentionKey, CurveGrid> out;
  auto it = merged.begin();
  while (it != merged.end()) {
    const AttentionKey& shape = std::get<0>(it->first);
    CurveGrid& grid = out[shape];
    while (it != merged.end() && std::get<0>(it->first) == shape) {
      const int64_t batch = std::get<1>(it->first);
      std::vector<double> lengths;  // [num_points]
      std::vector<double> seconds;  // [num_points]
      for (;
           it != merged.end() && std::get<0>(it->first) == shape && std::get<1>(it->first) == batch;
           ++it) {
        lengths.push_back(static_cast<double>(std::get<2>(it->first)));
        seconds.push_back(it->second);
      }
      grid.add(static_cast<double>(batch), MeasuredCurve(std::move(lengths), std::move(seconds)));
    }
  }
  return out;
}

// The columns every table may carry beside its shape: the kernel and the engine version.
struct VariantColumns {
  int kernel = -1;
  int version = -1;
  std::string own_version;

  VariantColumns(const KernelDbCsv& csv, const std::string& engine_folder)
      : kernel(csv.find("kernel_source")),
        version(csv.find("version")),
        own_version(engine_folder.substr(engine_folder.find('-') + 1)) {}
  std::string_view kernel_of(const KernelDbCsv& csv) const {
    return kernel >= 0 ? csv.text(kernel) : std::string_view();
  }
  bool own(const KernelDbCsv& csv) const { return version < 0 || csv.text(version) == own_version; }
};

bool has_file(const std::string& dir, const char* file) {
  return std::filesystem::is_regular_file(std::filesystem::path(dir) / file);
}

void load_gemm(const std::string& dir, const KernelDbManifest& manifest,
               const std::string& engine_folder, KernelDbTables& out) {
  KernelDbCsv csv(dir, "gemm_perf.csv", manifest);
  const int dtype = csv.require("gemm_dtype");
  const int m = csv.require("m");
  const int n = csv.require("n");
  const int k = csv.require("k");
  const int latency = csv.require("latency");
  const VariantColumns variant(csv, engine_folder);
  RepeatMerger<std::pair<GemmKey, int64_t>> rows;
  while (csv.next()) {
    const GemmKey key{std::string(csv.text(dtype)), csv.count(n), csv.count(k)};
    rows.add({key, csv.count(m)}, variant.own(csv), csv.positive(latency) * kSecondsPerMs);
  }
  out.gemm = curves_by_shape(rows.merged());
}

// Context (isl) and generation (step) attention share one layout.
std::map<AttentionKey, CurveGrid> load_attention(const std::string& dir, const char* file,
                                                 const char* length_column,
                                                 const KernelDbManifest& manifest,
                                                 const std::string& engine_folder) {
  // (kernel, kv_cache_dtype) pairs measured with bf16 math (keep_attention_row)
  std::set<std::pair<std::string, std::string>> bf16_math;
  {
    KernelDbCsv scan(dir, file, manifest);
    const int attn_dtype = scan.find("attn_dtype");
    const int kernel = scan.find("kernel_source");
    const int kv_dtype = scan.require("kv_cache_dtype");
    while (attn_dtype >= 0 && scan.next()) {
      if (scan.text(attn_dtype) != "bfloat16") continue;
      bf16_math.emplace(kernel >= 0 ? scan.text(kernel) : "", scan.text(kv_dtype));
    }
  }
  KernelDbCsv csv(dir, file, manifest);
  const int batch = csv.require("batch_size");
  const int length = csv.require(length_column);
  const int heads = csv.require("num_heads");
  const int kv_heads = csv.require("num_key_value_heads");
  const int head_dim = csv.require("head_dim");
  const int kv_dtype = csv.require("kv_cache_dtype");
  const int window = csv.find("window_size");  // older collectors (A100) record none: full
  const int attn_dtype = csv.find("attn_dtype");
  const int latency = csv.require("latency");
  const VariantColumns variant(csv, engine_folder);
  RepeatMerger<AttentionPoint> rows;
  while (csv.next()) {
    if (attn_dtype >= 0) {
      const std::pair<std::string, std::string> kernel_kv(variant.kernel_of(csv),
                                                          csv.text(kv_dtype));
      if (!keep_attention_row(csv.text(attn_dtype), kernel_kv.second,
                              bf16_math.contains(kernel_kv))) {
        continue;
      }
    }
    const int64_t window_size = window >= 0 ? csv.integer(window) : 0;
    if (window_size < 0) {
      throw InputError(fmt::format("{}:{}: window_size: must be >= 0", csv.path(), csv.line()));
    }
    const AttentionKey key{std::string(csv.text(kv_dtype)), csv.count(heads), csv.count(kv_heads),
                           csv.count(head_dim), window_size};
    rows.add({key, csv.count(batch), csv.count(length)}, variant.own(csv),
             csv.positive(latency) * kSecondsPerMs);
  }
  return grids_by_shape(rows.merged());
}

void load_moe(const std::string& dir, const KernelDbManifest& manifest,
              const std::string& engine_folder, KernelDbTables& out) {
  KernelDbCsv csv(dir, "moe_perf.csv", manifest);
  const int dtype = csv.require("moe_dtype");
  const int tokens = csv.require("num_tokens");
  const int hidden = csv.require("hidden_size");
  const int inter = csv.require("inter_size");
  const int topk = csv.require("topk");
  const int experts = csv.require("num_experts");
  const int tp = csv.require("moe_tp_size");
  const int ep = csv.require("moe_ep_size");
  const int distribution = csv.require("distribution");
  const int latency = csv.require("latency");
  const VariantColumns variant(csv, engine_folder);
  RepeatMerger<std::pair<MoeKey, int64_t>> rows;
  while (csv.next()) {
    const std::string_view kernel = variant.kernel_of(csv);
    const MoeKey key{std::string(csv.text(dtype)),
                     csv.count(hidden),
                     csv.count(inter),
                     csv.count(topk),
                     csv.count(experts),
                     csv.count(tp),
                     csv.count(ep),
                     std::string(csv.text(distribution)),
                     is_gated_moe_kernel(kernel)};
    rows.add({key, csv.count(tokens)}, variant.own(csv), csv.positive(latency) * kSecondsPerMs);
  }
  out.moe = curves_by_shape(rows.merged());
}

// The engine's own all-reduce: the CUDA-graph rows when the table has them.
std::map<int64_t, MeasuredCurve> load_custom_allreduce(const std::string& dir,
                                                       const KernelDbManifest& manifest,
                                                       const std::string& engine_folder) {
  const char* file = "custom_allreduce_perf.csv";
  bool has_graph = false;
  {
    KernelDbCsv scan(dir, file, manifest);
    const int kernel = scan.find("kernel_source");
    const int backend = scan.find("backend");
    while (!has_graph && scan.next()) {
      has_graph = is_graph_allreduce(kernel >= 0 ? scan.text(kernel) : "",
                                     backend >= 0 ? scan.text(backend) : "");
    }
  }
  KernelDbCsv csv(dir, file, manifest);
  const int gpus = csv.require("num_gpus");
  const int size = csv.require("message_size");
  const int latency = csv.require("latency");
  const int backend = csv.find("backend");
  const VariantColumns variant(csv, engine_folder);
  RepeatMerger<std::pair<int64_t, int64_t>> rows;
  while (csv.next()) {
    const std::string_view kernel = variant.kernel_of(csv);
    const bool graph = is_graph_allreduce(kernel, backend >= 0 ? csv.text(backend) : "");
    if (has_graph && !graph) continue;
    rows.add({csv.count(gpus), csv.count(size)}, variant.own(csv),
             csv.positive(latency) * kSecondsPerMs);
  }
  return curves_by_shape(rows.merged());
}

// NCCL's rows of one collective (op_name "all_reduce", "alltoall") in half precision.
std::map<int64_t, MeasuredCurve> load_nccl(const std::string& dir, const KernelDbManifest& manifest,
                                           std::string_view op_name) {
  KernelDbCsv csv(dir, "nccl_perf.csv", manifest);
  const int op = csv.require("op_name");
  const int dtype = csv.require("nccl_dtype");
  const int gpus = csv.require("num_gpus");
  const int size = csv.require("message_size");
  const int latency = csv.require("latency");
  RepeatMerger<std::pair<int64_t, int64_t>> rows;
  while (csv.next()) {
    if (csv.text(op) != op_name || csv.text(dtype) != "half") continue;
    rows.add({csv.count(gpus), csv.count(size)}, true, csv.positive(latency) * kSecondsPerMs);
  }
  return curves_by_shape(rows.merged());
}

}  // namespace

KernelDbTables load_kernel_db_tables(const KernelDbFolders& folders) {
  KernelDbTables out;
  out.folders = folders;
  const std::string& kernels = folders.kernels_dir;
  const KernelDbManifest manifest = read_kernel_db_manifest(kernels);
  out.source = manifest.source;
  const std::string& engine = folders.engine_folder;
  auto note_missing = [&](const std::string& dir, const char* file) {
    if (has_file(dir, file)) return false;
    out.missing_files.push_back((std::filesystem::path(dir) / file).string());
    return true;
  };
  if (!note_missing(kernels, "gemm_perf.csv")) load_gemm(kernels, manifest, engine, out);
  if (!note_missing(kernels, "context_attention_perf.csv")) {
    out.context_attention =
        load_attention(kernels, "context_attention_perf.csv", "isl", manifest, engine);
  }
  if (!note_missing(kernels, "generation_attention_perf.csv")) {
    out.generation_attention =
        load_attention(kernels, "generation_attention_perf.csv", "step", manifest, engine);
  }
  if (!note_missing(kernels, "moe_perf.csv")) load_moe(kernels, manifest, engine, out);
  if (out.missing_files.size() == 4) {
    throw InputError(
        fmt::format("kernel_db: {} holds none of gemm_perf.csv, context_attention_perf.csv, "
                    "generation_attention_perf.csv, moe_perf.csv",
                    kernels));
  }
  if (!note_missing(folders.allreduce_dir, "custom_allreduce_perf.csv")) {
    out.custom_allreduce = load_custom_allreduce(
        folders.allreduce_dir, read_kernel_db_manifest(folders.allreduce_dir), engine);
  }
  if (!note_missing(folders.nccl_dir, "nccl_perf.csv")) {
    const KernelDbManifest manifest = read_kernel_db_manifest(folders.nccl_dir);
    out.nccl_allreduce = load_nccl(folders.nccl_dir, manifest, "all_reduce");
    out.nccl_alltoall = load_nccl(folders.nccl_dir, manifest, "alltoall");
  }
  return out;
}

std::shared_ptr<const KernelDbTables> kernel_db_tables(const KernelDbSpec& spec,
                                                       const GpuSpec& gpu) {
  const KernelDbFolders folders = resolve_kernel_db_folders(spec, gpu);
  // Keyed by the folders read (canonical paths), so two spellings of one dir share a copy.
  auto canonical = [](const std::string& path) {
    std::error_code error;
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(path, error);
    return error ? path : resolved.string();
  };
  const std::string key = canonical(folders.kernels_dir) + "|" + canonical(folders.allreduce_dir) +
                          "|" + canonical(folders.nccl_dir);
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const KernelDbTables>> cache;  // key -> tables
  std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  auto tables = std::make_shared<const KernelDbTables>(load_kernel_db_tables(folders));
  cache.emplace(key, tables);
  return tables;
}

}  // namespace tidal::perf
