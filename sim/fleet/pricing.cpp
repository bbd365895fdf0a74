#include "sim/fleet/pricing.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "sim/fleet/spec_reading.h"

namespace tidal::fleet {

std::string format_dollars(MicroDollars amount) {
  const char* sign = amount < 0 ? "-" : "";
  const uint64_t magnitude =
      amount < 0 ? uint64_t{0} - static_cast<uint64_t>(amount) : static_cast<uint64_t>(amount);
  return fmt::format("{}{}.{:06d}", sign, magnitude / kMicroDollarsPerDollar,
                     magnitude % kMicroDollarsPerDollar);
}

double to_dollars(MicroDollars amount) {
  return static_cast<double>(amount) / kMicroDollarsPerDollar;
}

std::string_view billing_granularity_name(BillingGranularity granularity) {
  switch (granularity) {
    case BillingGranularity::per_second:
      return "per_second";
    case BillingGranularity::per_minute:
      return "per_minute";
    case BillingGranularity::per_hour:
      return "per_hour";
  }
  return "per_second";
}

std::string_view market_name(Market market) {
  return market == Market::spot ? "spot" : "on_demand";
}

MicroDollars PoolPricing::market_per_gpu_hour() const {
  return market == Market::spot ? spot_per_gpu_hour : on_demand_per_gpu_hour;
}

namespace {

// Prices above this are surely typos; the bound also keeps cost arithmetic far from overflow.
constexpr double kMaxPricePerGpuHour = 1e6;

std::optional<double> read_price(perf::JsonObjectReader& reader, std::string_view key) {
  if (!reader.has(key)) return std::nullopt;
  const double price = read_number(reader, key, 0.0, Bound::non_negative);
  if (price > kMaxPricePerGpuHour) {
    perf::throw_json_error(reader.where(), reader.child_path(key),
                           fmt::format("must be at most {:g} $/GPU-hour", kMaxPricePerGpuHour));
  }
  return price;
}

BillingGranularity parse_granularity(const std::string& text, const std::string& where,
                                     const std::string& path) {
  for (BillingGranularity g : {BillingGranularity::per_second, BillingGranularity::per_minute,
                               BillingGranularity::per_hour}) {
    if (billing_granularity_name(g) == text) return g;
  }
  perf::throw_json_error(where, path,
                         "unknown billing granularity \"" + text +
                             "\"; expected one of per_second, per_minute, per_hour");
}

std::array<bool, kNumLifecycleStates> parse_billed_states(const nlohmann::json& json,
                                                          const std::string& where,
                                                          const std::string& path) {
  if (!json.is_array()) perf::throw_json_error(where, path, "must be an array of state names");
  std::array<bool, kNumLifecycleStates> billed{};
  for (size_t i = 0; i < json.size(); ++i) {
    const std::string element_path = fmt::format("{}[{}]", path, i);
    if (!json[i].is_string()) perf::throw_json_error(where, element_path, "must be a string");
    const LifecycleState state =
        parse_lifecycle_state(json[i].get<std::string>(), where, element_path);
    if (state == LifecycleState::requested || state == LifecycleState::stopped) {
      perf::throw_json_error(where, element_path,
                             fmt::format("{} is never billed; bill any of provisioning, loading, "
                                         "warm, draining",
                                         lifecycle_state_name(state)));
    }
    if (billed[static_cast<size_t>(state)]) {
      perf::throw_json_error(where, element_path,
                             fmt::format("{} listed twice", lifecycle_state_name(state)));
    }
    billed[static_cast<size_t>(state)] = true;
  }
  return billed;
}

MicroDollars to_micro_dollars(double dollars) {
  return std::llround(dollars * static_cast<double>(kMicroDollarsPerDollar));
}

int64_t period_ns(BillingGranularity granularity) {
  switch (granularity) {
    case BillingGranularity::per_second:
      return 1'000'000'000;
    case BillingGranularity::per_minute:
      return 60'000'000'000;
    case BillingGranularity::per_hour:
      return 3'600'000'000'000;
  }
  return 1'000'000'000;
}

}  // namespace

PricingSpec parse_pricing_spec(const nlohmann::json& json, const std::string& where,
                               const std::string& path) {
  perf::JsonObjectReader reader(json, where, path);
  PricingSpec spec;
  const std::string market = read_string(reader, "market", market_name(spec.market));
  if (market == "spot") {
    spec.market = Market::spot;
  } else if (market != "on_demand") {
    perf::throw_json_error(where, reader.child_path("market"),
                           "unknown market \"" + market + "\"; expected on_demand or spot");
  }
  spec.on_demand_per_gpu_hour = read_price(reader, "on_demand_per_gpu_hour");
  spec.spot_per_gpu_hour = read_price(reader, "spot_per_gpu_hour");
  spec.reserved_replicas = static_cast<int32_t>(
      read_integer(reader, "reserved_replicas", spec.reserved_replicas, 0, kMaxReplicas));
  if (reader.has("reserved_discount") && reader.has("reserved_per_gpu_hour")) {
    perf::throw_json_error(where, reader.child_path("reserved_per_gpu_hour"),
                           "give reserved_discount or reserved_per_gpu_hour, not both");
  }
  spec.reserved_discount =
      read_number(reader, "reserved_discount", spec.reserved_discount, Bound::fraction);
  spec.reserved_per_gpu_hour = read_price(reader, "reserved_per_gpu_hour");
  if (reader.has("billing_granularity")) {
    spec.granularity = parse_granularity(reader.string("billing_granularity"), where,
                                         reader.child_path("billing_granularity"));
  }
  spec.minimum_billed_s =
      read_duration_s(reader, "minimum_billed_s", spec.minimum_billed_s, Bound::non_negative);
  if (reader.has("billed_states")) {
    spec.billed_states =
        parse_billed_states(reader.at("billed_states"), where, reader.child_path("billed_states"));
  }
  reader.finish();
  return spec;
}

PoolPricing resolve_pricing(const PricingSpec& spec, const perf::GpuSpec& gpu,
                            int32_t gpus_per_replica, std::string pool_name) {
  PoolPricing pricing;
  pricing.pool_name = std::move(pool_name);
  pricing.gpus_per_replica = gpus_per_replica;
  pricing.market = spec.market;
  const double on_demand = spec.on_demand_per_gpu_hour.value_or(gpu.price_on_demand_per_h);
  pricing.on_demand_per_gpu_hour = to_micro_dollars(on_demand);
  pricing.spot_per_gpu_hour =
      to_micro_dollars(spec.spot_per_gpu_hour.value_or(gpu.price_spot_per_h));
  pricing.reserved_per_gpu_hour = to_micro_dollars(
      spec.reserved_per_gpu_hour.value_or(on_demand * (1.0 - spec.reserved_discount)));
  pricing.reserved_replicas = spec.reserved_replicas;
  pricing.billing_period_ns = period_ns(spec.granularity);
  pricing.minimum_billed_ns = seconds_to_ns(spec.minimum_billed_s);
  pricing.billed_states = spec.billed_states;
  return pricing;
}

}  // namespace tidal::fleet
