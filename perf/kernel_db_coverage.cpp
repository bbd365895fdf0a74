#include "perf/kernel_db_coverage.h"

#include <nlohmann/json.hpp>

namespace tidal::perf {

std::string_view coverage_kind_name(CoverageKind kind) {
  switch (kind) {
    case CoverageKind::table:
      return "table";
    case CoverageKind::scaled:
      return "scaled";
    case CoverageKind::roofline:
      return "roofline";
    case CoverageKind::unused:
      return "unused";
  }
  return "roofline";
}

int KernelDbCoverage::count(CoverageKind kind) const {
  int n = 0;
  for (const OperatorCoverage& op : operators) n += op.kind == kind ? 1 : 0;
  return n;
}

const OperatorCoverage& KernelDbCoverage::of(OpClass op) const {
  return operators.at(static_cast<std::size_t>(op));
}

nlohmann::json coverage_json(const KernelDbCoverage& coverage) {
  nlohmann::json ops = nlohmann::json::object();
  for (const OperatorCoverage& op : coverage.operators) {
    ops[std::string(op_class_name(op.op))] = {{"source", std::string(coverage_kind_name(op.kind))},
                                              {"detail", op.detail}};
  }
  return {{"tables", coverage.tables}, {"operators", ops}};
}

}  // namespace tidal::perf
