#include "sim/router_admission_spec.h"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "sim/json_object.h"

namespace tidal::sim {
namespace {

using ojson = nlohmann::ordered_json;

struct Knob {
  std::string_view key;
  std::string_view policy;  // the policy that reads it
};
constexpr std::array<Knob, 6> kKnobs{{{"unit", "token_bucket"},
                                      {"tokens_per_s", "token_bucket"},
                                      {"burst_tokens", "token_bucket"},
                                      {"tenants", "token_bucket"},
                                      {"max_queued", "queue_limit"},
                                      {"max_queued_tokens", "queue_limit"}}};

// tokens_per_s >= 0 and burst_tokens > 0 of one bucket object; absent keys keep `rate`'s.
TokenBucketRate read_rate(JsonObject& obj, TokenBucketRate rate) {
  rate.tokens_per_s =
      obj.non_negative("tokens_per_s", obj.number("tokens_per_s", rate.tokens_per_s));
  rate.burst_tokens = obj.positive("burst_tokens", obj.number("burst_tokens", rate.burst_tokens));
  return rate;
}

void read_token_bucket(JsonObject& obj, AdmissionSpec& spec) {
  spec.unit = obj.string("unit", spec.unit);
  if (spec.unit != "tokens" && spec.unit != "requests") {
    obj.fail("unit", fmt::format("unknown unit \"{}\" (known: tokens, requests)", spec.unit));
  }
  if (!obj.has("tokens_per_s")) obj.fail("tokens_per_s", "missing (required by token_bucket)");
  // One second of refill unless given.
  spec.rate.burst_tokens = obj.number("tokens_per_s", 0.0);
  spec.rate = read_rate(obj, spec.rate);
  const nlohmann::json* tenants = obj.child("tenants");
  if (tenants == nullptr || tenants->is_null()) return;
  if (!tenants->is_object()) {
    obj.fail("tenants", "expected an object {\"tenant\": {\"tokens_per_s\", \"burst_tokens\"}}");
  }
  JsonObject tenants_obj(*tenants, obj.path_of("tenants"), obj.file());
  std::vector<std::string_view> names;
  for (auto it = tenants->begin(); it != tenants->end(); ++it) {
    const nlohmann::json* value = tenants_obj.child(it.key());
    JsonObject tenant_obj(*value, tenants_obj.path_of(it.key()), obj.file());
    spec.tenants[it.key()] = read_rate(tenant_obj, spec.rate);
    tenant_obj.finish({"tokens_per_s", "burst_tokens"});
    names.push_back(it.key());
  }
  tenants_obj.finish(names);
}

void read_queue_limit(JsonObject& obj, AdmissionSpec& spec) {
  if (!obj.has("max_queued") && !obj.has("max_queued_tokens")) {
    obj.fail("max_queued", "missing (queue_limit needs max_queued or max_queued_tokens)");
  }
  if (obj.has("max_queued")) {
    spec.max_queued = obj.at_least("max_queued", obj.integer("max_queued", 1), 1);
  }
  if (obj.has("max_queued_tokens")) {
    spec.max_queued_tokens =
        obj.at_least("max_queued_tokens", obj.integer("max_queued_tokens", 1), 1);
  }
}

ojson rate_json(const TokenBucketRate& rate) {
  return ojson{{"tokens_per_s", rate.tokens_per_s}, {"burst_tokens", rate.burst_tokens}};
}

}  // namespace

AdmissionSpec parse_admission_spec(JsonObject& router_obj) {
  AdmissionSpec spec;
  const nlohmann::json* value = router_obj.child("admission");
  if (value == nullptr) return spec;
  JsonObject obj(*value, router_obj.path_of("admission"), router_obj.file());
  spec.policy = obj.string("policy", spec.policy);
  const auto names = admission_names();
  if (std::find(names.begin(), names.end(), spec.policy) == names.end()) {
    std::string known;
    for (std::string_view n : names) known += (known.empty() ? "" : ", ") + std::string(n);
    obj.fail("policy",
             fmt::format("unknown admission policy \"{}\" (known: {})", spec.policy, known));
  }
  for (const Knob& knob : kKnobs) {
    if (obj.has(knob.key) && knob.policy != spec.policy) {
      obj.fail(knob.key, fmt::format("not a knob of admission policy \"{}\" (a knob of {})",
                                     spec.policy, knob.policy));
    }
  }
  if (spec.policy == "token_bucket") read_token_bucket(obj, spec);
  if (spec.policy == "queue_limit") read_queue_limit(obj, spec);
  std::vector<std::string_view> known{"policy"};
  for (const Knob& knob : kKnobs) known.push_back(knob.key);
  obj.finish(known);
  return spec;
}

ojson admission_to_json(const AdmissionSpec& spec) {
  ojson j{{"policy", spec.policy}};
  if (spec.policy == "token_bucket") {
    j["unit"] = spec.unit;
    j.update(rate_json(spec.rate));
    ojson tenants = ojson::object();
    for (const auto& [name, rate] : spec.tenants) tenants[name] = rate_json(rate);
    j["tenants"] = tenants;
  }
  if (spec.policy == "queue_limit") {
    if (spec.max_queued) j["max_queued"] = *spec.max_queued;
    if (spec.max_queued_tokens) j["max_queued_tokens"] = *spec.max_queued_tokens;
  }
  return j;
}

}  // namespace tidal::sim
