#include "sim/fleet/spot.h"

#include <algorithm>
#include <cmath>

#include "sim/fleet/spec_reading.h"
#include "traces/random.h"

namespace tidal::fleet {

SpotSpec parse_spot_spec(const nlohmann::json& json, const std::string& where,
                         const std::string& path) {
  perf::JsonObjectReader reader(json, where, path);
  SpotSpec spec;
  spec.mean_time_between_interruptions_s =
      read_duration_s(reader, "mean_time_between_interruptions_s",
                      spec.mean_time_between_interruptions_s, Bound::positive);
  spec.notice_s = read_duration_s(reader, "notice_s", spec.notice_s, Bound::non_negative);
  reader.finish();
  return spec;
}

SpotInterruptionProcess::SpotInterruptionProcess(const SpotSpec& spec, uint64_t seed)
    : mean_ns_(spec.mean_time_between_interruptions_s * 1e9),
      notice_ns_(seconds_to_ns(spec.notice_s)),
      seed_(seed) {}

SpotInterruption SpotInterruptionProcess::interruption(uint64_t replica_id, uint64_t lease_index,
                                                       int64_t lease_start_ns) const {
  traces::Rng rng(traces::derive_seed(traces::derive_seed(seed_, replica_id), lease_index));
  // Lifetimes beyond ~31 years (1e18 ns) are cut there so the clock cannot overflow.
  constexpr double kMaxLifetimeNs = 1e18;
  const double lifetime_ns = std::min(rng.exponential(mean_ns_), kMaxLifetimeNs);
  SpotInterruption event;
  event.interrupt_ns = lease_start_ns + std::max<int64_t>(1, std::llround(lifetime_ns));
  event.notice_ns = std::max(lease_start_ns, event.interrupt_ns - notice_ns_);
  return event;
}

}  // namespace tidal::fleet
