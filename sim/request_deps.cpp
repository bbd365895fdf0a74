#include "sim/request_deps.h"

namespace tidal::sim {

RequestDeps::RequestDeps(const std::vector<Request>& requests)
    : num_unfinished(requests.size(), 0),
      done_ns(requests.size(), 0),
      failed_dep(requests.size(), -1),
      waiting(requests.size(), 0),
      begin(requests.size() + 1, 0) {
  const size_t n = requests.size();
  for (size_t i = 0; i < n; ++i) {
    num_unfinished[i] = static_cast<int32_t>(requests[i].deps.size());
    for (int64_t dep : requests[i].deps) ++begin[static_cast<size_t>(dep) + 1];
  }
  for (size_t i = 0; i < n; ++i) begin[i + 1] += begin[i];
  dependents.resize(static_cast<size_t>(begin[n]));
  std::vector<int64_t> fill(begin.begin(), begin.end() - 1);  // [n]
  for (size_t i = 0; i < n; ++i) {
    for (int64_t dep : requests[i].deps) {
      dependents[static_cast<size_t>(fill[static_cast<size_t>(dep)]++)] = static_cast<int64_t>(i);
    }
  }
}

}  // namespace tidal::sim
