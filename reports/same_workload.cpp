#include "reports/same_workload.h"

#include <string>

namespace tidal::reports {
namespace {

// Tenant and class names of each request (indices differ when the name lists do).
bool same_names(const std::vector<std::string>& names_a, const std::vector<int32_t>& a,
                const std::vector<std::string>& names_b, const std::vector<int32_t>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (names_a[static_cast<size_t>(a[i])] != names_b[static_cast<size_t>(b[i])]) return false;
  }
  return true;
}

bool same_classes(const std::vector<ClassFigures>& a, const std::vector<ClassFigures>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].name != b[k].name || a[k].slo_ttft_s != b[k].slo_ttft_s ||
        a[k].slo_tpot_s != b[k].slo_tpot_s || a[k].slo_e2e_s != b[k].slo_e2e_s ||
        a[k].num_requests != b[k].num_requests) {
      return false;
    }
  }
  return true;
}

bool same_requests(const RequestRows& a, const RequestRows& b) {
  return a.arrival_s == b.arrival_s && a.prompt_tokens == b.prompt_tokens &&
         a.output_tokens == b.output_tokens &&
         same_names(a.tenant_names, a.tenant, b.tenant_names, b.tenant) &&
         same_names(a.class_names, a.slo_class, b.class_names, b.slo_class);
}

}  // namespace

bool same_workload(const std::vector<RunData>& runs) {
  if (runs.empty() || !runs.front().has_requests) return false;
  const RunData& first = runs.front();
  for (size_t k = 1; k < runs.size(); ++k) {
    const RunData& r = runs[k];
    if (!r.has_requests || r.summary.num_requests != first.summary.num_requests ||
        !same_requests(r.requests, first.requests) ||
        !same_classes(r.summary.classes, first.summary.classes)) {
      return false;
    }
  }
  return true;
}

}  // namespace tidal::reports
