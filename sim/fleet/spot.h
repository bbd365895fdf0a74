// Spot (preemptible) interruptions: when the provider takes a spot replica back. Each lease of
// a spot replica (replica id, lease number) gets an exponentially distributed lifetime with the
// given mean, drawn from its own seeded stream, so the answer does not depend on the order the
// event loop asks in. The provider warns notice_s before it interrupts; the event loop drains
// the replica at the notice and re-queues what is still running at the interruption.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace tidal::fleet {

struct SpotSpec {
  double mean_time_between_interruptions_s = 6.0 * 3600.0;  // example value; varies by market
  double notice_s = 120.0;  // AWS EC2 spot: two-minute interruption notice
};

// Parses a `spot` object (both keys optional; mean > 0, notice >= 0).
SpotSpec parse_spot_spec(const nlohmann::json& json, const std::string& where,
                         const std::string& path);

struct SpotInterruption {
  int64_t notice_ns = 0;     // the warning: max(lease start, interrupt - notice)
  int64_t interrupt_ns = 0;  // the replica is gone
};

class SpotInterruptionProcess {
 public:
  SpotInterruptionProcess(const SpotSpec& spec, uint64_t seed);

  // The interruption of lease `lease_index` (0, 1, ... per replica) of spot replica
  // `replica_id`, which started at `lease_start_ns`. A pure function of its arguments, the spec
  // and the seed.
  SpotInterruption interruption(uint64_t replica_id, uint64_t lease_index,
                                int64_t lease_start_ns) const;

 private:
  double mean_ns_;
  int64_t notice_ns_;
  uint64_t seed_;
};

}  // namespace tidal::fleet
