// Pricing: spec parsing, catalog defaults, reserved discount, dollar formatting.
#include "sim/fleet/pricing.h"

#include <gtest/gtest.h>

#include "base/input_error.h"

namespace tidal::fleet {
namespace {

PricingSpec parse(const nlohmann::json& json) {
  return parse_pricing_spec(json, "scenario.json", "fleet.pools[1].pricing");
}

std::string parse_error(const nlohmann::json& json) {
  try {
    parse(json);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Pricing, FormatsMicroDollarsExactly) {
  EXPECT_EQ(format_dollars(0), "0.000000");
  EXPECT_EQ(format_dollars(1), "0.000001");
  EXPECT_EQ(format_dollars(12'345'678), "12.345678");
  EXPECT_EQ(format_dollars(-2'500'000), "-2.500000");
  EXPECT_DOUBLE_EQ(to_dollars(4'250'000), 4.25);
}

TEST(Pricing, DefaultsComeFromTheGpuCatalog) {
  const perf::GpuSpec& h100 = perf::find_gpu("H100-SXM", "test");
  const PoolPricing pricing = resolve_pricing(parse(nlohmann::json::object()), h100, 2, "big");
  EXPECT_EQ(pricing.pool_name, "big");
  EXPECT_EQ(pricing.gpus_per_replica, 2);
  EXPECT_EQ(pricing.market, Market::on_demand);
  EXPECT_EQ(pricing.on_demand_per_gpu_hour, std::llround(h100.price_on_demand_per_h * 1e6));
  EXPECT_EQ(pricing.spot_per_gpu_hour, std::llround(h100.price_spot_per_h * 1e6));
  EXPECT_EQ(pricing.reserved_per_gpu_hour, std::llround(h100.price_on_demand_per_h * 0.6 * 1e6));
  EXPECT_EQ(pricing.market_per_gpu_hour(), pricing.on_demand_per_gpu_hour);
  EXPECT_EQ(pricing.reserved_replicas, 0);
  EXPECT_EQ(pricing.billing_period_ns, 1'000'000'000);
  EXPECT_EQ(pricing.minimum_billed_ns, 0);
  const std::array<bool, kNumLifecycleStates> expected{false, false, true, true, true, false};
  EXPECT_EQ(pricing.billed_states, expected);
}

TEST(Pricing, ParsesEveryKey) {
  const PricingSpec spec = parse({{"market", "spot"},
                                  {"on_demand_per_gpu_hour", 3.0},
                                  {"spot_per_gpu_hour", 1.1},
                                  {"reserved_replicas", 4},
                                  {"reserved_per_gpu_hour", 1.9},
                                  {"billing_granularity", "per_hour"},
                                  {"minimum_billed_s", 60},
                                  {"billed_states", {"provisioning", "warm"}}});
  const PoolPricing pricing = resolve_pricing(spec, perf::find_gpu("A100-80GB", "test"), 1, "p");
  EXPECT_EQ(pricing.market, Market::spot);
  EXPECT_EQ(pricing.on_demand_per_gpu_hour, 3'000'000);
  EXPECT_EQ(pricing.spot_per_gpu_hour, 1'100'000);
  EXPECT_EQ(pricing.market_per_gpu_hour(), 1'100'000);
  EXPECT_EQ(pricing.reserved_per_gpu_hour, 1'900'000);
  EXPECT_EQ(pricing.reserved_replicas, 4);
  EXPECT_EQ(pricing.billing_period_ns, 3'600'000'000'000);
  EXPECT_EQ(pricing.minimum_billed_ns, 60'000'000'000);
  const std::array<bool, kNumLifecycleStates> expected{false, true, false, true, false, false};
  EXPECT_EQ(pricing.billed_states, expected);

  const PoolPricing discounted = resolve_pricing(parse({{"on_demand_per_gpu_hour", 2.0},
                                                        {"reserved_discount", 0.25},
                                                        {"billing_granularity", "per_minute"}}),
                                                 perf::find_gpu("A100-80GB", "test"), 1, "p");
  EXPECT_EQ(discounted.reserved_per_gpu_hour, 1'500'000);
  EXPECT_EQ(discounted.billing_period_ns, 60'000'000'000);
}

TEST(Pricing, BadSpecsNameTheJsonPath) {
  EXPECT_EQ(parse_error({{"market", "auction"}}),
            "scenario.json: fleet.pools[1].pricing.market: unknown market \"auction\"; expected "
            "on_demand or spot");
  EXPECT_EQ(parse_error({{"billing_granularity", "per_day"}}),
            "scenario.json: fleet.pools[1].pricing.billing_granularity: unknown billing "
            "granularity \"per_day\"; expected one of per_second, per_minute, per_hour");
  EXPECT_EQ(parse_error({{"billed_states", {"warm", "stopped"}}}),
            "scenario.json: fleet.pools[1].pricing.billed_states[1]: stopped is never billed; bill "
            "any of provisioning, loading, warm, draining");
  EXPECT_EQ(parse_error({{"billed_states", {"warm", "warm"}}}),
            "scenario.json: fleet.pools[1].pricing.billed_states[1]: warm listed twice");
  EXPECT_EQ(parse_error({{"billed_states", {"hot"}}}),
            "scenario.json: fleet.pools[1].pricing.billed_states[0]: unknown lifecycle state "
            "\"hot\"; expected one of requested, provisioning, loading, warm, draining, stopped");
  EXPECT_EQ(parse_error({{"reserved_discount", 0.3}, {"reserved_per_gpu_hour", 1.0}}),
            "scenario.json: fleet.pools[1].pricing.reserved_per_gpu_hour: give reserved_discount "
            "or reserved_per_gpu_hour, not both");
  EXPECT_EQ(parse_error({{"reserved_replicas", -1}}),
            "scenario.json: fleet.pools[1].pricing.reserved_replicas: must be between 0 and "
            "10000 (got -1)");
  EXPECT_EQ(parse_error({{"spot_per_gpu_hour", -0.5}}),
            "scenario.json: fleet.pools[1].pricing.spot_per_gpu_hour: must be >= 0 (got -0.5)");
  EXPECT_EQ(parse_error({{"price", 1}}),
            "scenario.json: fleet.pools[1].pricing.price: unknown key");
}

}  // namespace
}  // namespace tidal::fleet
