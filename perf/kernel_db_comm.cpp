#include <fmt/format.h>

#include "perf/kernel_db_lookup.h"

namespace tidal::perf {

AllReduceLookup::AllReduceLookup(const KernelDbTables& tables, int64_t num_gpus,
                                 const KernelScaling& scaling)
    : num_gpus_(num_gpus), scaling_(&scaling) {
  if (const auto it = tables.custom_allreduce.find(num_gpus); it != tables.custom_allreduce.end()) {
    curve_ = &it->second;
    table_ = "custom_allreduce_perf";
  } else if (const auto nccl = tables.nccl_allreduce.find(num_gpus);
             nccl != tables.nccl_allreduce.end()) {
    curve_ = &nccl->second;
    table_ = "nccl_perf all_reduce";
  }
}

double AllReduceLookup::seconds(double elements) const {
  return curve_->seconds(elements, [&](double x) { return scaling_->allreduce(x, num_gpus_); });
}

std::string AllReduceLookup::describe() const {
  if (!found()) return fmt::format("no all-reduce rows for {} GPUs", num_gpus_);
  return fmt::format("{} {} GPUs, {}..{} elements measured", table_, num_gpus_, curve_->front(),
                     curve_->back());
}

AllToAllLookup::AllToAllLookup(const KernelDbTables& tables, int64_t num_gpus,
                               const KernelScaling& scaling)
    : num_gpus_(num_gpus), scaling_(&scaling) {
  if (const auto it = tables.nccl_alltoall.find(num_gpus); it != tables.nccl_alltoall.end()) {
    curve_ = &it->second;
  }
}

double AllToAllLookup::seconds(double elements) const {
  return curve_->seconds(elements, [&](double x) { return scaling_->alltoall(x, num_gpus_); });
}

std::string AllToAllLookup::describe() const {
  if (!found()) return fmt::format("no nccl_perf alltoall rows for {} GPUs", num_gpus_);
  return fmt::format("nccl_perf alltoall {} GPUs, {}..{} elements measured", num_gpus_,
                     curve_->front(), curve_->back());
}

}  // namespace tidal::perf
