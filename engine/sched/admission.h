// Admission policies: may a request take GPU blocks now, and may running requests be preempted
// when blocks run out. Small classes chosen by name (SchedulerConfig::admission).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

namespace tidal::sched {

// Block counts an admission decision (a new request, or a swapped one coming back) sees.
struct AdmissionQuery {
  int64_t num_free_blocks = 0;       // free GPU blocks now (cached free blocks included)
  int64_t num_watermark_blocks = 0;  // blocks admission must leave free
  int64_t num_blocks_now = 0;        // free blocks the request takes if admitted now
  int64_t num_blocks_later = 0;      // more blocks it may take before it finishes
  int64_t num_reserved_blocks = 0;   // blocks the running requests may still take
};

class AdmissionPolicy {
 public:
  virtual ~AdmissionPolicy() = default;
  virtual bool admits(const AdmissionQuery& query) const = 0;
  // Whether a running request that cannot grow may preempt others (false: it never happens).
  virtual bool allows_preemption() const = 0;
};

// `name` must be one of admission_policy_names() (validate() checks it); std::logic_error else.
std::unique_ptr<AdmissionPolicy> make_admission_policy(std::string_view name);

}  // namespace tidal::sched
