// The router's `admission` object (docs/scenario.md, "Admission control"): which admission
// policy decides, once per request as it reaches the router, whether the fleet takes it, and
// that policy's knobs. Knobs are read only by the policy that uses them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tidal::sim {

class JsonObject;

// One tenant's token bucket: refilled at tokens_per_s, holding at most burst_tokens.
struct TokenBucketRate {
  double tokens_per_s = 0.0;
  double burst_tokens = 0.0;

  bool operator==(const TokenBucketRate&) const = default;
};

struct AdmissionSpec {
  std::string policy = "none";  // none | token_bucket | queue_limit | slo_deadline
  // token_bucket: what a request costs, "tokens" (prompt + output) or "requests" (1 each).
  std::string unit = "tokens";
  TokenBucketRate rate;  // token_bucket: every tenant's bucket but those in `tenants`
  std::map<std::string, TokenBucketRate> tenants;  // token_bucket: per-tenant overrides
  // queue_limit: a request finding the router queue non-empty is rejected when the queue holds
  // max_queued requests, or when its tokens (prompt + output) and the queue's exceed
  // max_queued_tokens; at least one is given.
  std::optional<int64_t> max_queued;
  std::optional<int64_t> max_queued_tokens;

  bool operator==(const AdmissionSpec&) const = default;
};

// Registered policy names, in registry order: none, token_bucket, queue_limit, slo_deadline.
std::span<const std::string_view> admission_names();
// The router object's `admission` key (default: policy none); InputErrors name the JSON path
// (`router.admission.tokens_per_s: must be >= 0, got -1`).
AdmissionSpec parse_admission_spec(JsonObject& router_obj);
// The resolved object as summary.json echoes it: the policy and its own knobs.
nlohmann::ordered_json admission_to_json(const AdmissionSpec& spec);

}  // namespace tidal::sim
