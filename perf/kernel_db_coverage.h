// Where each operator class of a kernel_db model's steps comes from: a measured table, a
// measured neighbouring shape scaled by the roofline, or the roofline alone (and why). Small and
// plain so the simulator can echo it into summary.json.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "perf/step_time_model.h"

namespace tidal::perf {

enum class CoverageKind {
  table,     // the exact shape is measured: interpolated between measured sizes, scaled by the
             // roofline beyond the measured range (`detail` gives the range)
  scaled,    // the shape is not measured: the nearest measured shape, times the roofline's ratio
             // of the two shapes (`detail` names both)
  roofline,  // not in the tables (elementwise ops, CPU overhead, MLA attention, a dtype or table
             // the data lacks): the roofline model (`detail` says why)
  unused,    // the model does not run this class (MoE classes of a dense model, all-reduce at tp 1)
};
std::string_view coverage_kind_name(CoverageKind kind);

struct OperatorCoverage {
  OpClass op = OpClass::embedding;
  CoverageKind kind = CoverageKind::roofline;
  std::string detail;  // e.g. "gemm bfloat16 n=6144 k=4096, m 1..32768 measured"
};

struct KernelDbCoverage {
  std::string tables;                       // e.g. "h200_sxm/vllm-0.19.0 (collectives: ...)"
  std::string engine_version;               // the kernels' engine version, e.g. "0.19.0"
  std::vector<OperatorCoverage> operators;  // [kNumOpClasses], in OpClass order

  int count(CoverageKind kind) const;
  const OperatorCoverage& of(OpClass op) const;
};

// {"tables": ..., "operators": {"qkv_proj": {"source": "table", "detail": ...}, ...}}
nlohmann::json coverage_json(const KernelDbCoverage& coverage);

}  // namespace tidal::perf
