// One kernel of a deployment priced from the tables: the shape is resolved once (the measured
// shape itself, or the nearest measured one of the same dtype), then seconds() interpolates
// along the measured sizes (kernel_db_curve.h). A shape that is not measured is priced as the
// nearest measured shape times the roofline's ratio of the two (KernelScaling): the measured
// neighbour supplies the kernel's achieved efficiency, the roofline how the work grows between
// the shapes. "Nearest" is the smallest sum of |log(a / b)| over the shape's dimensions; ties
// go to the first in key order, so the choice is deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perf/kernel_db_coverage.h"
#include "perf/kernel_db_scaling.h"
#include "perf/kernel_db_tables.h"

namespace tidal::perf {

// |log(a / b)|: how far apart two sizes of one dimension are.
double log_distance(double a, double b);

// [m, k] x [k, n]: seconds over m.
class GemmLookup {
 public:
  // Tries `dtypes` in order; found() is false when the tables hold none of them.
  GemmLookup(const KernelDbTables& tables, const std::vector<std::string>& dtypes, int64_t n,
             int64_t k, const KernelScaling& scaling);

  bool found() const { return curve_ != nullptr; }
  CoverageKind kind() const { return exact() ? CoverageKind::table : CoverageKind::scaled; }
  bool exact() const { return wanted_ == measured_; }
  double seconds(double m) const;
  std::string describe() const;  // or, when not found, why

 private:
  GemmKey wanted_;
  GemmKey measured_;
  const MeasuredCurve* curve_ = nullptr;
  const KernelScaling* scaling_ = nullptr;
  std::string dtypes_tried_;
};

// One layer's attention. Context (prefill): `batch` sequences of `length` new tokens each.
// Generation (decode): `batch` sequences of one new token on `length` cached ones.
class AttentionLookup {
 public:
  enum class Phase { context, generation };
  // A window the tables lack is priced from the full-attention rows of the shape (window 0),
  // times the roofline's windowed / full ratio; a kv dtype they lack is not found().
  AttentionLookup(const KernelDbTables& tables, Phase phase, const AttentionKey& wanted,
                  const KernelScaling& scaling);

  bool found() const { return grid_ != nullptr; }
  CoverageKind kind() const { return exact() ? CoverageKind::table : CoverageKind::scaled; }
  bool exact() const { return wanted_ == measured_; }
  double seconds(double batch, double length) const;
  // The roofline's price of attending `c` new tokens over `p` cached ones (batch 1) in the
  // wanted shape, for the caller's cached-context term.
  double roofline(double c, double p) const;
  std::string describe() const;

 private:
  double roofline_of(const AttentionKey& shape, double batch, double length) const;

  Phase phase_;
  AttentionKey wanted_;
  AttentionKey measured_;
  const CurveGrid* grid_ = nullptr;
  const KernelScaling* scaling_ = nullptr;
};

// One MoE layer's routed experts: seconds over num_tokens.
class MoeLookup {
 public:
  // Shapes at the wanted gating and ep (wanted.ep; when no dtype of `dtypes` is measured at it,
  // the nearest shape of any ep), of the first of `dtypes` the tables hold, in the most uniform
  // distribution measured (moe_distribution_preference()); nearest over the shape, tp and ep.
  MoeLookup(const KernelDbTables& tables, const std::vector<std::string>& dtypes,
            const MoeKey& wanted, const KernelScaling& scaling);
  // The same, from `tables` of another GPU of the same chip (kernel_db_folders.h,
  // same_chip_gpu): `scaling` is that GPU's, `priced_on` the priced GPU's; each latency is
  // scaled by the roofline's ratio between the two.
  MoeLookup(const KernelDbTables& tables, const std::vector<std::string>& dtypes,
            const MoeKey& wanted, const KernelScaling& scaling, const KernelScaling& priced_on);

  bool found() const { return curve_ != nullptr; }
  CoverageKind kind() const {
    return exact() && priced_on_ == nullptr ? CoverageKind::table : CoverageKind::scaled;
  }
  bool exact() const;  // same shape (the distribution may be the preferred stand-in)
  double seconds(double tokens) const;
  std::string describe() const;

 private:
  // The nearest shape of `dtype` (at wanted_.ep when same_ep); false when none is usable.
  bool lookup(const KernelDbTables& tables, const std::string& dtype, bool same_ep);

  MoeKey wanted_;
  MoeKey measured_;
  const MeasuredCurve* curve_ = nullptr;
  const KernelScaling* scaling_ = nullptr;    // the measuring GPU's
  const KernelScaling* priced_on_ = nullptr;  // the priced GPU's when another measured the rows
  std::string measured_gpu_;                  // the tables' kernel_gpu
  std::string dtypes_tried_;
};

// One MoE all-to-all (dispatch or combine) over `num_gpus` GPUs: NCCL's alltoall rows, over the
// elements of each GPU's send buffer.
class AllToAllLookup {
 public:
  AllToAllLookup(const KernelDbTables& tables, int64_t num_gpus, const KernelScaling& scaling);

  bool found() const { return curve_ != nullptr; }
  double seconds(double elements) const;
  std::string describe() const;

 private:
  int64_t num_gpus_ = 0;
  const MeasuredCurve* curve_ = nullptr;
  const KernelScaling* scaling_ = nullptr;
};

// One all-reduce over `num_gpus` GPUs: the engine's own (custom_allreduce_perf), else NCCL's.
class AllReduceLookup {
 public:
  AllReduceLookup(const KernelDbTables& tables, int64_t num_gpus, const KernelScaling& scaling);

  bool found() const { return curve_ != nullptr; }
  double seconds(double elements) const;
  std::string describe() const;

 private:
  int64_t num_gpus_ = 0;
  const MeasuredCurve* curve_ = nullptr;
  const KernelScaling* scaling_ = nullptr;
  std::string table_;  // "custom_allreduce_perf" or "nccl_perf"
};

}  // namespace tidal::perf
