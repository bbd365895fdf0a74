// Lossy speedups as what-ifs (docs/perf.md, "Lossy speedups"): knobs that trade quality for
// time and KV capacity. The quality cost is the user's declared figure; tidal never verifies it.
//   kv_kept_ratio     KV compression that keeps this share of a sequence's tokens (H2O- or
//                     SnapKV-style eviction by importance): attention reads that share of the
//                     context, and a token's KV takes that share of a block's bytes;
//   kv_window_tokens  attention reads at most the latest W tokens (StreamingLLM-style window
//                     eviction): step time only, the KV cache still holds every token;
//   layer_skip_share  this share of the layers is never run (static layer dropping): every
//                     per-layer operator takes that much less time, and the skipped layers keep
//                     no KV; their weights stay loaded.
// LossyStepModel applies them to any step-time model (roofline, profile, kernel_db) by
// rewriting the batch it is asked to price and scaling the per-layer operators.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "perf/step_time_model.h"

namespace tidal::perf {

struct LossySpec {
  double kv_kept_ratio = 1.0;     // in (0, 1]
  int64_t kv_window_tokens = 0;   // 0: no window
  double layer_skip_share = 0.0;  // in [0, 1)
  // The quality the user expects to lose (a share, e.g. 0.02 for 2 points of a benchmark), as
  // declared; empty when not declared.
  std::optional<double> declared_quality_loss;

  // Some knob changes time or capacity.
  bool changes_anything() const {
    return kv_kept_ratio < 1.0 || kv_window_tokens > 0 || layer_skip_share > 0.0;
  }
  // The share of a token's full KV bytes the cache keeps: kept ratio x layers run.
  double kv_bytes_share() const { return kv_kept_ratio * (1.0 - layer_skip_share); }
  // The context attention reads for `context_tokens` in the cache.
  int64_t attended_context(int64_t context_tokens) const;
};

class LossyStepModel final : public StepTimeModel {
 public:
  LossyStepModel(std::shared_ptr<const StepTimeModel> exact, const LossySpec& lossy);

  double step_seconds(std::span<const SeqWork> batch) const override;
  // A block holds kv_bytes_share() of a full block's bytes: the exact model's time for that
  // share of the blocks.
  double swap_seconds(int64_t num_blocks) const override;
  StepBreakdown breakdown(std::span<const SeqWork> batch) const override;

 private:
  // `batch` with each context cut to what attention reads (a per-thread buffer).
  std::span<const SeqWork> attended(std::span<const SeqWork> batch) const;

  std::shared_ptr<const StepTimeModel> exact_;
  LossySpec lossy_;
};

}  // namespace tidal::perf
