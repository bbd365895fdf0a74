// What the simulator records about one request while it runs; metrics and requests.csv are
// computed from these records and nothing else.
#pragma once

#include <cstdint>

#include "base/name.h"

namespace tidal::sim {

enum class RequestStatus : uint8_t { pending, finished, rejected };

struct RequestRecord {
  // Times in simulated nanoseconds; -1 until the event happens.
  // Reaches the router; for requests with deps not before the last dep finished (as its client
  // saw it) plus the request's think time.
  int64_t arrival_ns = 0;
  int64_t first_scheduled_ns = -1;  // first step that computes any of its tokens
  // Token times are when the client sees them: the step's end plus network_ns.
  int64_t first_token_ns = -1;  // end of the step that produced its first output token
  int64_t last_token_ns = -1;   // end of the step that produced its latest output token
  int64_t finish_ns = -1;       // end of the step that produced its last token (finished only)
  int64_t num_output_tokens_done = 0;
  int64_t num_prefix_hit_tokens = 0;  // prompt tokens served from the prefix cache
  int64_t max_itl_ns = 0;             // largest gap between two consecutive output tokens
  int64_t network_ns = 0;             // one-way client -> serving region latency (last replica)
  double hol_delay_s = 0.0;           // its steps' stretch by co-scheduled long prefills
  double hol_caused_s = 0.0;          // stretch its own long prefill chunks caused others
  // The 4-byte fields and the status side by side: 112 bytes per request of a run.
  int32_t replica = -1;  // replica the router chose (with disaggregated serving: prefill side)
  int32_t num_preemptions = 0;
  int32_t num_requeues = 0;  // times a spot interruption sent it back to the router
  RequestStatus status = RequestStatus::pending;
  base::Name reason;  // why it was rejected; empty otherwise
};

// Disaggregated serving's part of a request's record (docs/fleet.md), kept beside the records
// only by runs with disaggregated pools (RunResult::handoffs). Its prefill replica is
// RequestRecord::replica; once that produced the first token, its KV moves to `decode_replica`.
struct HandoffRecord {
  int32_t decode_replica = -1;             // -1 until one is chosen
  int64_t prefill_done_ns = -1;            // end of the prefill step (server side)
  int64_t transfer_start_ns = -1;          // a decode replica was chosen; bytes start moving
  int64_t transfer_end_ns = -1;            // the KV landed at the decode replica
  int64_t decode_first_scheduled_ns = -1;  // first step at the decode replica
  double transfer_bytes = 0.0;
};

}  // namespace tidal::sim
