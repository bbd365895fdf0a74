#include "perf/kernel_db_profile.h"

#include <vector>

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/kernel_db_costs.h"
#include "perf/kernel_db_tables.h"
#include "perf/step_costs.h"

namespace tidal::perf {
namespace {

// 1..64 by 1, then by 16 to 512, by 64 to 4096, by 256 to 16384, by 1024 to 32768.
std::vector<int64_t> count_grid() {
  std::vector<int64_t> counts;  // [num_points]
  const int64_t steps[][2] = {{64, 1}, {512, 16}, {4096, 64}, {16384, 256}, {32768, 1024}};
  int64_t n = 0;
  for (const auto& [end, step] : steps) {
    for (n += step; n <= end; n += step) counts.push_back(n);
    n = counts.back();
  }
  return counts;
}

const std::vector<int64_t> kChunkTokens = {1,    16,   32,   64,   128,  256,  512,   1024,
                                           1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384};
const std::vector<int64_t> kPrefillContexts = {0,    256,   1024,  2048,  4096,
                                               8192, 16384, 32768, 65536, 131072};
const std::vector<int64_t> kDecodeBatches = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048};
const std::vector<int64_t> kDecodeContexts = {16,   64,   256,   512,   1024,  2048,
                                              4096, 8192, 16384, 32768, 65536, 131072};

bool step_level(OpClass op) {
  return op == OpClass::embedding || op == OpClass::lm_head || op == OpClass::sampling;
}

void fill_attention(const KernelDbCosts& costs, double layers, AttentionTables& a) {
  a.prefill_chunk_tokens = kChunkTokens;
  a.prefill_context_tokens = kPrefillContexts;
  for (const int64_t c : kChunkTokens) {
    for (const int64_t p : kPrefillContexts) {
      const SeqWork chunk{c, p, 1};
      a.prefill_seconds.push_back(costs.attention_seconds({&chunk, 1}).prefill / layers);
    }
  }
  a.decode_batch_sizes = kDecodeBatches;
  a.decode_context_tokens = kDecodeContexts;
  for (const int64_t b : kDecodeBatches) {
    for (const int64_t p : kDecodeContexts) {
      const std::vector<SeqWork> decodes(static_cast<std::size_t>(b), SeqWork{1, p, 1});
      a.decode_seconds.push_back(costs.attention_seconds(decodes).decode / layers);
    }
  }
}

}  // namespace

Profile kernel_db_profile(const KernelDbSpec& spec, const ModelSpec& model, const GpuSpec& gpu,
                          const Deployment& deployment, const RooflineOptions& options,
                          KernelDbCoverage* coverage_out) {
  if (model.num_linear_layers() > 0) {  // a profile times every layer alike
    throw InputError(fmt::format(
        "{} mixes {} linear-attention layers with {} attention layers, which a profile cannot "
        "hold: use perf kind kernel_db directly",
        model.name, model.num_linear_layers(), model.num_attention_layers()));
  }
  const std::shared_ptr<const KernelDbTables> tables = kernel_db_tables(spec, gpu);
  const KernelDbCosts costs(tables, spec, model, gpu, deployment, options);
  const KernelDbCoverage& coverage = costs.coverage();
  if (coverage_out != nullptr) *coverage_out = coverage;

  Profile p;
  p.provenance.backend = "kernel_db";
  p.provenance.device = coverage.tables;
  p.provenance.commit = tables->source;
  p.provenance.source = fmt::format(
      "measured kernel tables {} (allreduce {}); {} classes from tables, {} scaled from a "
      "neighbouring shape, {} roofline",
      tables->folders.kernels_dir, tables->folders.allreduce_dir,
      coverage.count(CoverageKind::table), coverage.count(CoverageKind::scaled),
      coverage.count(CoverageKind::roofline));
  p.model = {model.name,         model.hidden, model.num_heads, model.num_kv_heads,
             model.intermediate, model.vocab,  model.gated_mlp};
  p.tp = deployment.tp;
  p.weight_dtype = deployment.weight_dtype;
  p.kv_dtype = deployment.kv_dtype;

  const std::vector<int64_t> counts = count_grid();
  auto add_operator = [&](OpClass op, bool row_class) {
    const OperatorCoverage& c = coverage.of(op);
    if (c.kind == CoverageKind::unused || (!step_level(op) && layers_running(model, op) == 0)) {
      return;
    }
    OperatorTable table;
    if (c.kind == CoverageKind::roofline) {
      table.source = TimeSource::roofline;
    } else {
      table.scope = OpScope::step;
      table.num_tokens = counts;
      for (const int64_t n : counts) {
        table.seconds.push_back(row_class ? costs.seq_seconds(op, n) : costs.token_seconds(op, n));
      }
    }
    p.operators[op] = std::move(table);
  };
  for (OpClass op : kTokenOpClasses) {
    if (op != OpClass::allreduce) add_operator(op, false);
  }
  for (OpClass op : kRowOpClasses) add_operator(op, true);

  const double layers = static_cast<double>(model.num_layers);
  if (coverage.of(OpClass::attention_prefill).kind != CoverageKind::roofline &&
      coverage.of(OpClass::attention_decode).kind != CoverageKind::roofline) {
    p.attention_source = TimeSource::measured;
    fill_attention(costs, layers, p.attention);
  }
  if (coverage.of(OpClass::allreduce).kind == CoverageKind::table) {
    p.allreduce.source = TimeSource::measured;
    for (const int64_t n : counts) {
      p.allreduce.bytes.push_back(static_cast<double>(n * model.hidden) * 2.0);
      p.allreduce.seconds.push_back(costs.token_seconds(OpClass::allreduce, n) / (2.0 * layers));
    }
  }
  validate_profile(p, "kernel_db profile");
  return p;
}

}  // namespace tidal::perf
