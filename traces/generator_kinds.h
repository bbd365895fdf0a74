// The generator kinds behind generate() and what they share: the common spec keys and the
// final ordering of requests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "traces/distribution.h"
#include "traces/request.h"
#include "traces/spec_object.h"

namespace tidal::traces {

// Keys every generator kind accepts (docs/generators.md, "Common keys").
struct CommonSettings {
  uint64_t seed = 0;
  std::string base_dir;
  double time_scale = 1.0;              // multiplies every generated time
  double rate_scale = 1.0;              // multiplies the kind's rates
  double length_scale = 1.0;            // multiplies prompt and output lengths
  std::optional<double> duration_s;     // horizon of the final trace
  std::optional<int64_t> num_requests;  // or: this many requests
  std::string tenant;
  std::string slo_class;
  std::string region;

  // The horizon in the generator's own time, before time_scale.
  double process_horizon_s() const;
};

// Rejects unknown keys, then checks the horizon: batch needs num_requests, every other kind
// exactly one of duration_s and num_requests (closed_loop rejects duration_s itself). Kinds call it
// once all their keys are read.
void finish_parsing(SpecObject& spec, const CommonSettings& settings, bool is_batch = false);

// Seeds of independent random streams, so one knob changes only what it is about.
enum class Stream : uint64_t { arrivals = 1, prompts, outputs, structure, blocks, workloads };
uint64_t stream_seed(uint64_t seed, Stream stream, uint64_t index = 0);

// "prompt" and "output" distributions with per-kind defaults (JSON specs of a Distribution).
struct LengthDistributions {
  Distribution prompt;
  Distribution output;
};
LengthDistributions parse_lengths(SpecObject& spec, const CommonSettings& settings,
                                  const nlohmann::json& default_prompt,
                                  const nlohmann::json& default_output);
// A count distribution (turns, stages, fan-out) under `key`, with a default.
Distribution parse_count(SpecObject& spec, std::string_view key, const nlohmann::json& fallback);

// InputError when a workload would exceed kMaxGeneratedRequests.
void check_request_budget(const SpecObject& spec, double expected_requests);

std::vector<Request> generate_open_loop(SpecObject& spec, const std::string& kind,
                                        const CommonSettings& settings);
std::vector<Request> generate_batch(SpecObject& spec, const CommonSettings& settings);
std::vector<Request> generate_sessions(SpecObject& spec, const CommonSettings& settings);
std::vector<Request> generate_agent(SpecObject& spec, const CommonSettings& settings);
std::vector<Request> generate_closed_loop(SpecObject& spec, const CommonSettings& settings);
std::vector<Request> generate_mix(SpecObject& spec, uint64_t seed, const std::string& base_dir);
std::vector<Request> load_file_workload(SpecObject& spec, const std::string& base_dir);

// Stable sort by arrival, ids renumbered 0..n-1 and deps rewritten to the new ids. InputError
// (at `path`) when a dep names an id that is not in `requests` or ids repeat among requests
// that deps refer to.
void order_and_renumber(std::vector<Request>& requests, const std::string& path);

}  // namespace tidal::traces
