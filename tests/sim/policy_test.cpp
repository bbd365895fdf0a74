// Direction tests of the serving policies on saturating loads: each asserts the effect a
// policy exists for, not exact figures. (Measured when written: continuous 7.0x static output
// tokens/s; chunked prefill p99 ITL 0.018 s vs 0.100 s; prefix caching +6% prompt tokens/s and
// mean TTFT 3.0 s vs 8.9 s.)
#include <gtest/gtest.h>

#include "sim/metrics.h"
#include "sim/simulator.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::scenario_from;

RunMetrics run(const nlohmann::json& scenario) {
  const Scenario s = scenario_from(scenario);
  RunResult r = run_scenario(s);
  return compute_metrics(s, r);
}

nlohmann::json lognormal(double median, double sigma, double max) {
  return {{"dist", "lognormal"}, {"median", median}, {"sigma", sigma}, {"max", max}};
}

nlohmann::json one_pool(const std::string& model, int num_replicas, const nlohmann::json& scheduler,
                        bool prefix_caching = true) {
  return {{"pools",
           {{{"model", model},
             {"gpu", "H100-SXM"},
             {"num_replicas", num_replicas},
             {"prefix_caching", prefix_caching},
             {"scheduler", scheduler}}}}};
}

// 3000 requests at once: an offline job that saturates one replica. Same sequence limit for
// both policies; the SLO (E2E within 15 minutes) is the same too.
TEST(Policy, ContinuousBatchingAtLeastDoublesStaticThroughputAtEqualSlo) {
  auto scenario = [](const std::string& policy) {
    return nlohmann::json{
        {"workloads",
         {{{"generator",
            {{"kind", "batch"},
             {"num_requests", 3000},
             {"prompt", lognormal(512, 0.5, 4000)},
             {"output", lognormal(256, 0.8, 2000)}}},
           {"slo_class", "offline"},
           {"slo", {{"e2e_s", 900}}}}}},
        {"fleet", one_pool("llama-3-8b", 1,
                           {{"policy", policy}, {"max_num_seqs", 64}, {"static_batch_size", 64}})}};
  };
  const RunMetrics continuous = run(scenario("continuous"));
  const RunMetrics static_batching = run(scenario("static"));
  EXPECT_EQ(continuous.num_finished, 3000);
  EXPECT_EQ(static_batching.num_finished, 3000);
  EXPECT_GE(continuous.output_tokens_per_s, 2.0 * static_batching.output_tokens_per_s)
      << "continuous " << continuous.output_tokens_per_s << " tok/s, static "
      << static_batching.output_tokens_per_s << " tok/s";
  EXPECT_GE(continuous.goodput_rps, 2.0 * static_batching.goodput_rps)
      << "continuous " << continuous.goodput_rps << " req/s, static " << static_batching.goodput_rps
      << " req/s";
}

// Long prompts arriving while others decode: without chunking each prefill stalls every
// running decode for the whole prompt.
TEST(Policy, ChunkedPrefillLowersP99InterTokenLatency) {
  auto scenario = [](const nlohmann::json& scheduler) {
    return nlohmann::json{{"seed", 4},
                          {"workloads",
                           {{{"generator",
                              {{"kind", "poisson"},
                               {"rate", 1.2},
                               {"duration_s", 300},
                               {"prompt", lognormal(5000, 0.3, 7000)},
                               {"output", lognormal(300, 0.5, 1000)}}}}}},
                          {"fleet", one_pool("llama-3-8b", 1, scheduler)}};
  };
  const RunMetrics continuous =
      run(scenario({{"policy", "continuous"}, {"max_num_batched_tokens", 8192}}));
  const RunMetrics chunked =
      run(scenario({{"policy", "chunked_prefill"}, {"max_num_batched_tokens", 512}}));
  EXPECT_EQ(continuous.num_rejected, 0);
  EXPECT_EQ(chunked.num_rejected, 0);
  EXPECT_LT(chunked.itl.p99, continuous.itl.p99)
      << "chunked " << chunked.itl.p99 << " s, continuous " << continuous.itl.p99 << " s";
}

// The Mooncake conversation trace shares prompt prefixes (37% of its blocks over the whole
// trace); its first five minutes, about 41k prompt tokens/s, saturate one Qwen2.5-7B replica.
// Prompts over 32k tokens are rejected in both runs.
TEST(Policy, PrefixCachingRaisesThroughputOnMooncake) {
  auto scenario = [](bool prefix_caching) {
    return nlohmann::json{
        {"duration_s", 300},
        {"workloads",
         {{{"trace", {{"path", TIDAL_SHARED_DIR "/traces/mooncake/conversation_trace.jsonl"}}},
           {"rate_scale", 1.0}}}},
        {"fleet", one_pool("qwen2.5-7b", 1,
                           {{"policy", "chunked_prefill"},
                            {"max_num_batched_tokens", 4096},
                            {"max_model_len", 32768}},
                           prefix_caching)}};
  };
  const RunMetrics cached = run(scenario(true));
  const RunMetrics uncached = run(scenario(false));
  EXPECT_EQ(cached.num_finished, uncached.num_finished);
  EXPECT_GT(cached.num_prefix_hit_tokens, 0);
  EXPECT_EQ(uncached.num_prefix_hit_tokens, 0);
  EXPECT_GT(cached.input_tokens_per_s, uncached.input_tokens_per_s)
      << "cached " << cached.input_tokens_per_s << " tok/s, uncached "
      << uncached.input_tokens_per_s << " tok/s";
  EXPECT_LT(cached.ttft.mean, uncached.ttft.mean);
}

}  // namespace
}  // namespace tidal::sim
