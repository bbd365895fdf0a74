// The request record every part of tidal shares (DESIGN.md, "Data model and formats").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/name.h"

namespace tidal {

// One LLM inference request as a trace describes it: sizes and timing, never text. Its text
// fields are interned names (base/name.h): a run holds millions of requests (192 bytes each,
// tests/sim/request_sizes_test.cpp) and few distinct names.
struct Request {
  int64_t id = 0;
  double arrival_s = 0.0;     // seconds since the trace start (readers normalise to start at 0)
  int64_t prompt_tokens = 0;  // tokens in the prompt
  int64_t output_tokens = 0;  // tokens the request generates
  // Optional fields: empty / -1 when the trace does not carry them.
  base::Name session_id;            // conversation this request belongs to
  int32_t turn = -1;                // 0-based turn within the session
  int32_t prefix_block_tokens = 0;  // 0 when prefix_blocks is empty
  base::Name tenant;                // who sent it (BurstGPT: the model name)
  base::Name slo_class;             // interactive | batch | ... (BurstGPT: the log type)
  base::Name region;                // client region, for network distance
  // Hashes of consecutive fixed-size prompt blocks, leading block first; equal leading hashes
  // mean a shared prefix. prefix_block_tokens says the block size they were cut with.
  std::vector<uint64_t> prefix_blocks;  // [ceil(prompt_tokens / prefix_block_tokens)] or empty
  std::vector<int64_t> deps;            // ids of requests this one waits on (agent DAGs)
  // Closed-loop clients: seconds between the last dep's finish (as the client sees it) and
  // this request's arrival; a request arrives at max(arrival_s, that time). 0 needs no deps;
  // > 0 needs some.
  double think_time_s = 0.0;
  bool failed = false;  // the source marked it failed (BurstGPT 0-token replies)
  // Its data must stay near its user: served only by pools in `edge` or `client` regions
  // (docs/scenario.md, "Model routing").
  bool is_private = false;
  // Scheduling priority, lower = more urgent (vLLM's `priority`); schedulers read it as 0 when
  // absent. A scenario's `priorities` map fills it from slo_class where the trace gave none.
  std::optional<int32_t> priority;
  // The model it asks for (a pool's `model` name); empty: any model the fleet serves.
  base::Name model;
  // How hard it is, in [0, 1], for the complexity model router (sim/model_assignment.h).
  std::optional<double> complexity;
  // The LoRA adapter it asks for (served by pools with `lora`); empty: the base model.
  base::Name adapter;
  // Bytes of the request and of its whole answer on the wire, for egress dollars; -1: its
  // tokens times the network's bytes per token (docs/fleet.md, "Egress").
  int64_t request_bytes = -1;
  int64_t response_bytes = -1;

  bool operator==(const Request&) const = default;
};

// Why a request is rejected when a request it waits on (Request::deps) was rejected, in the
// simulator's and the engine's requests.csv alike: one reason for every such request, so the
// rejection counts group them (which dependency failed is in the trace's deps).
inline constexpr std::string_view kDependencyRejected = "dependency_rejected";

}  // namespace tidal
