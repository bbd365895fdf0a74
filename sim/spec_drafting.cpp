#include "sim/spec_drafting.h"

namespace tidal::sim {

double host_drafting_seconds(const SpeculativeSpec& spec, std::span<const perf::SeqWork> batch) {
  if (!spec.enabled()) return 0.0;
  double seconds = 0.0;
  for (const perf::SeqWork& w : batch) {
    if (w.num_context_tokens > 0) {
      seconds += spec.draft_seconds_per_seq +
                 spec.draft_seconds_per_context_token * static_cast<double>(w.num_context_tokens);
    }
  }
  return seconds;
}

}  // namespace tidal::sim
