#include "engine/sched/admission.h"

#include <array>
#include <stdexcept>
#include <string>

#include "engine/sched/config.h"

namespace tidal::sched {

namespace {

// Optimistic: take only what this step needs and keep the watermark free; when the pool runs
// dry later, preempt.
class MaxUtilizationAdmission final : public AdmissionPolicy {
 public:
  bool admits(const AdmissionQuery& q) const override {
    return q.num_blocks_now <= q.num_free_blocks - q.num_watermark_blocks;
  }
  bool allows_preemption() const override { return true; }
};

// Conservative: admit only when the request's whole lifetime (prompt + every output token) fits
// beside what the running requests may still take; then nobody ever has to be preempted.
class GuaranteedNoEvictAdmission final : public AdmissionPolicy {
 public:
  bool admits(const AdmissionQuery& q) const override {
    return q.num_blocks_now + q.num_blocks_later + q.num_reserved_blocks <=
           q.num_free_blocks - q.num_watermark_blocks;
  }
  bool allows_preemption() const override { return false; }
};

struct AdmissionEntry {
  std::string_view name;
  std::unique_ptr<AdmissionPolicy> (*make)();
};

constexpr std::array<AdmissionEntry, 2> kAdmissionRegistry{{
    {"max_utilization",
     []() -> std::unique_ptr<AdmissionPolicy> {
       return std::make_unique<MaxUtilizationAdmission>();
     }},
    {"guaranteed_no_evict",
     []() -> std::unique_ptr<AdmissionPolicy> {
       return std::make_unique<GuaranteedNoEvictAdmission>();
     }},
}};

constexpr std::array<std::string_view, kAdmissionRegistry.size()> kAdmissionNames{
    kAdmissionRegistry[0].name, kAdmissionRegistry[1].name};

}  // namespace

std::span<const std::string_view> admission_policy_names() {
  return kAdmissionNames;
}

std::unique_ptr<AdmissionPolicy> make_admission_policy(std::string_view name) {
  for (const AdmissionEntry& entry : kAdmissionRegistry) {
    if (entry.name == name) return entry.make();
  }
  throw std::logic_error("sched: unknown admission policy '" + std::string(name) + "'");
}

}  // namespace tidal::sched
