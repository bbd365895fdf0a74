// What a pool's GPUs cost: on-demand, spot and reserved (committed) prices per GPU-hour, the
// billing period each lease rounds up to, and which lifecycle states are billed. Prices are
// held as integer micro-dollars per GPU-hour so that every bill is exact (docs/fleet.md).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "perf/gpu_catalog.h"
#include "sim/fleet/lifecycle.h"

namespace tidal::fleet {

using MicroDollars = int64_t;  // 10^-6 US$
inline constexpr MicroDollars kMicroDollarsPerDollar = 1'000'000;

// "12.345678": exactly six decimals, no floating-point rounding.
std::string format_dollars(MicroDollars amount);
double to_dollars(MicroDollars amount);

enum class BillingGranularity { per_second, per_minute, per_hour };
// Replicas beyond the reservation are bought on this market.
enum class Market { on_demand, spot };

std::string_view billing_granularity_name(BillingGranularity granularity);
std::string_view market_name(Market market);

struct PricingSpec {
  Market market = Market::on_demand;
  std::optional<double> on_demand_per_gpu_hour;  // default: the GPU catalog's on-demand price
  std::optional<double> spot_per_gpu_hour;       // default: the GPU catalog's spot example
  int32_t reserved_replicas = 0;                 // committed replicas, billed for the whole run
  double reserved_discount = 0.4;                // reserved = on-demand * (1 - discount)
  std::optional<double> reserved_per_gpu_hour;   // overrides reserved_discount
  BillingGranularity granularity = BillingGranularity::per_second;
  double minimum_billed_s = 0.0;  // shortest billed lease (e.g. 60 for a 1-minute minimum)
  // Indexed by LifecycleState; requested and stopped are never billed.
  std::array<bool, kNumLifecycleStates> billed_states{false, false, true, true, true, false};
};

// Parses a `pricing` object (every key optional). Unknown keys, bad values, `reserved_discount`
// together with `reserved_per_gpu_hour`, and billing `requested` or `stopped` are InputErrors.
PricingSpec parse_pricing_spec(const nlohmann::json& json, const std::string& where,
                               const std::string& path);

// A pool's resolved prices, as the BillingLedger uses them.
struct PoolPricing {
  std::string pool_name;
  int32_t gpus_per_replica = 1;
  Market market = Market::on_demand;
  MicroDollars on_demand_per_gpu_hour = 0;
  MicroDollars spot_per_gpu_hour = 0;
  MicroDollars reserved_per_gpu_hour = 0;
  int32_t reserved_replicas = 0;
  int64_t billing_period_ns = 1'000'000'000;
  int64_t minimum_billed_ns = 0;
  std::array<bool, kNumLifecycleStates> billed_states{};

  // The price per GPU-hour of replicas beyond the reservation.
  MicroDollars market_per_gpu_hour() const;
};

// Fills catalog prices for what `spec` leaves out; prices round to the micro-dollar.
PoolPricing resolve_pricing(const PricingSpec& spec, const perf::GpuSpec& gpu,
                            int32_t gpus_per_replica, std::string pool_name);

}  // namespace tidal::fleet
