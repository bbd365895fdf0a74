// Disaggregated prefill and decode in the event loop: every request is prefilled on a prefill
// replica, its KV crosses a link to a decode replica, which produces the rest; nothing is lost,
// KV blocks return on both sides, transfer times follow the link's arithmetic, and bad
// configurations are one clear error each.
#include <gtest/gtest.h>

#include <sstream>

#include "base/input_error.h"
#include "fleet_test_util.h"
#include "sim/kv_transfer_summary.h"
#include "sim/run_output.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

using testing::FleetRun;
using testing::run_fleet_scenario;
using testing::scenario_from;

nlohmann::json pool(const std::string& name, const std::string& role, int num_replicas,
                    int tp = 1) {
  return {{"name", name}, {"model", "llama-3-8b"},        {"gpu", "H100-SXM"},      {"tp", tp},
          {"role", role}, {"num_replicas", num_replicas}, {"prefix_caching", false}};
}

nlohmann::json poisson(double rate, double duration_s, int prompt, int output) {
  return {{"name", "chat"},
          {"generator",
           {{"kind", "poisson"},
            {"rate", rate},
            {"duration_s", duration_s},
            {"prompt", {{"dist", "uniform"}, {"min", prompt / 2}, {"max", prompt}}},
            {"output", {{"dist", "uniform"}, {"min", 1}, {"max", output}}}}}};
}

nlohmann::json pd_scenario(const nlohmann::json& link, int num_prefill = 2, int num_decode = 3,
                           double rate = 20.0) {
  return {
      {"seed", 3},
      {"workloads", {poisson(rate, 30.0, 2000, 300)}},
      {"fleet", {{"pools", {pool("p", "prefill", num_prefill), pool("d", "decode", num_decode)}}}},
      {"kv_transfer", {{"links", {link}}}}};
}

const nlohmann::json kInfiniband = {{"from", "p"}, {"to", "d"}, {"kind", "infiniband"}};

TEST(Disagg, EveryRequestIsPrefilledThenDecodedAndBlocksReturnOnBothSides) {
  const FleetRun run = run_fleet_scenario(scenario_from(pd_scenario(kInfiniband)));
  const auto& requests = run.result.table.requests;
  ASSERT_GT(requests.size(), 400u);
  int64_t num_decoded = 0;
  ASSERT_EQ(run.result.handoffs.size(), requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    const RequestRecord& r = run.result.records[i];
    const HandoffRecord& h = run.result.handoffs[i];
    ASSERT_EQ(r.status, RequestStatus::finished) << i;
    EXPECT_EQ(r.num_output_tokens_done, requests[i].output_tokens);
    EXPECT_EQ(run.result.replicas[static_cast<size_t>(r.replica)].pool, 0);
    if (requests[i].output_tokens == 1) {  // the prefill replica's token is the only one
      EXPECT_EQ(h.decode_replica, -1);
      EXPECT_EQ(h.transfer_start_ns, -1);
      continue;
    }
    ++num_decoded;
    ASSERT_GE(h.decode_replica, 0);
    EXPECT_EQ(run.result.replicas[static_cast<size_t>(h.decode_replica)].pool, 1);
    EXPECT_LE(r.first_scheduled_ns, h.prefill_done_ns);
    EXPECT_LE(h.prefill_done_ns, r.first_token_ns);
    EXPECT_LE(h.prefill_done_ns, h.transfer_start_ns);
    EXPECT_LT(h.transfer_start_ns, h.transfer_end_ns);
    EXPECT_LE(h.transfer_end_ns, h.decode_first_scheduled_ns);
    EXPECT_LT(h.decode_first_scheduled_ns, r.finish_ns);
    EXPECT_GT(h.transfer_bytes, 0.0);
  }
  EXPECT_GT(num_decoded, 300);
  double bytes = 0.0;
  for (const TimelineRow& row : run.result.timeline) bytes += row.kv_transfer_bytes;
  ASSERT_EQ(run.result.kv_link_usage.size(), 1u);
  EXPECT_EQ(run.result.kv_link_usage[0].num_transfers, num_decoded);
  EXPECT_DOUBLE_EQ(run.result.kv_link_usage[0].bytes, bytes);
  for (const ReplicaSummary& replica : run.result.replicas) {
    EXPECT_EQ(replica.num_used_blocks_at_end, 0);
    EXPECT_EQ(replica.scheduler.num_added,
              replica.scheduler.num_finished + replica.scheduler.num_removed);
  }
}

TEST(Disagg, ALoneTransferTakesLatencyPlusBytesOverTheNarrowerSide) {
  // One request: prefill at tp 2, decode at tp 1; the decode side's single GPU sets the rate.
  nlohmann::json j = pd_scenario({{"from", "p"},
                                  {"to", "d"},
                                  {"kind", "ethernet"},
                                  {"gb_per_s_per_gpu", 10},
                                  {"latency_ms", 0.5}},
                                 1, 1);
  j["workloads"] = {{{"name", "one"},
                     {"generator",
                      {{"kind", "batch"},
                       {"num_requests", 1},
                       {"prompt", {{"dist", "fixed"}, {"value", 1000}}},
                       {"output", {{"dist", "fixed"}, {"value", 50}}}}}}};
  j["fleet"]["pools"][0]["tp"] = 2;
  const FleetRun run = run_fleet_scenario(scenario_from(j));
  const RequestRecord& r = run.result.records[0];
  const HandoffRecord& h = run.result.handoffs[0];
  const PoolSpec& decode = run.scenario.pools[1];
  // Llama-3-8B: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes (bf16) per token, all on the
  // decode replica's single GPU; the 1,000 prompt tokens cross (the first token's KV does not).
  const double bytes_per_token = 32.0 * 8 * 128 * 2 * 2;
  EXPECT_DOUBLE_EQ(decode.memory.kv_bytes_per_token_per_gpu, bytes_per_token);
  EXPECT_DOUBLE_EQ(h.transfer_bytes, 1000 * bytes_per_token);
  const int64_t bytes_ns = static_cast<int64_t>(std::ceil(1000 * bytes_per_token / 10.0));
  EXPECT_EQ(h.transfer_end_ns - h.transfer_start_ns, bytes_ns + 500'000);
  EXPECT_EQ(h.transfer_start_ns, h.prefill_done_ns);  // a decode replica was free
  // The first token streams from the decode side: the transfer is part of the TTFT.
  EXPECT_GT(r.first_token_ns, h.decode_first_scheduled_ns);
  EXPECT_LT(r.max_itl_ns, h.transfer_end_ns - h.prefill_done_ns);
}

TEST(Disagg, TheFirstTokenStreamsFromTheDecodeSideUnlessPrefillIsNamed) {
  auto run = [](const char* first_token_from) {
    nlohmann::json j = pd_scenario(kInfiniband);
    j["kv_transfer"]["first_token_from"] = first_token_from;
    return run_fleet_scenario(scenario_from(j));
  };
  const FleetRun decode = run("decode");
  const FleetRun prefill = run("prefill");
  EXPECT_EQ(scenario_to_json(decode.scenario)["kv_transfer"]["first_token_from"], "decode");
  EXPECT_EQ(scenario_to_json(prefill.scenario)["kv_transfer"]["first_token_from"], "prefill");
  ASSERT_EQ(decode.result.records.size(), prefill.result.records.size());
  int64_t num_decoded = 0;
  for (size_t i = 0; i < decode.result.records.size(); ++i) {
    const RequestRecord& d = decode.result.records[i];
    const RequestRecord& p = prefill.result.records[i];
    const HandoffRecord& h = decode.result.handoffs[i];
    // Where tokens are shown changes nothing the replicas do.
    EXPECT_EQ(d.finish_ns, p.finish_ns);
    EXPECT_EQ(d.num_output_tokens_done, p.num_output_tokens_done);
    EXPECT_EQ(d.last_token_ns, p.last_token_ns);
    if (h.decode_replica < 0) {  // done at the prefill replica: shown from there either way
      EXPECT_EQ(d.first_token_ns, p.first_token_ns);
      continue;
    }
    ++num_decoded;
    EXPECT_LE(p.first_token_ns, h.prefill_done_ns + d.network_ns + 1'000'000);
    // Shown with the decode replica's first token, after the KV landed.
    EXPECT_GT(d.first_token_ns, h.transfer_end_ns);
    EXPECT_GT(d.first_token_ns, h.decode_first_scheduled_ns);
    EXPECT_LE(d.max_itl_ns, p.max_itl_ns);
  }
  EXPECT_GT(num_decoded, 300);
  // Every token after the first is still one inter-token sample (the held one shows with no gap).
  EXPECT_EQ(decode.result.itl.count(), prefill.result.itl.count());
  EXPECT_GT(decode.metrics.ttft.p50, prefill.metrics.ttft.p50);
  EXPECT_EQ(decode.metrics.num_finished, prefill.metrics.num_finished);
}

TEST(Disagg, ConcurrentTransfersShareTheLinkCap) {
  // Many simultaneous prompts over a capped link take longer than over an uncapped one.
  auto batch = [](const nlohmann::json& link) {
    nlohmann::json j = pd_scenario(link, 4, 4);
    j["workloads"] = {{{"name", "burst"},
                       {"generator",
                        {{"kind", "batch"},
                         {"num_requests", 64},
                         {"prompt", {{"dist", "fixed"}, {"value", 2000}}},
                         {"output", {{"dist", "fixed"}, {"value", 20}}}}}}};
    return run_fleet_scenario(scenario_from(j));
  };
  const FleetRun free_link = batch(kInfiniband);
  nlohmann::json capped = kInfiniband;
  capped["gb_per_s"] = 5;
  const FleetRun shared = batch(capped);
  int64_t free_ns = 0;
  int64_t shared_ns = 0;
  for (size_t i = 0; i < free_link.result.handoffs.size(); ++i) {
    const HandoffRecord& a = free_link.result.handoffs[i];
    const HandoffRecord& b = shared.result.handoffs[i];
    free_ns += a.transfer_end_ns - a.transfer_start_ns;
    shared_ns += b.transfer_end_ns - b.transfer_start_ns;
    // One transfer alone over the cap: never faster than bytes / cap.
    EXPECT_GE(static_cast<double>(b.transfer_end_ns - b.transfer_start_ns), b.transfer_bytes / 5.0);
  }
  EXPECT_GT(shared_ns, 4 * free_ns);
  // The timeline's transfers in flight integrate to the transfers' byte-moving time (each
  // transfer's time less the link's latency).
  double in_flight_ns = 0.0;
  int64_t most = 0;
  for (const TimelineRow& row : shared.result.timeline) {
    in_flight_ns += row.mean_kv_transfers * static_cast<double>(row.end_ns - row.start_ns);
    most = std::max(most, row.max_kv_transfers);
  }
  const int64_t latency_ns = 10'000;  // infiniband's 0.01 ms
  EXPECT_NEAR(in_flight_ns, static_cast<double>(shared_ns - 64 * latency_ns), 1e-6 * shared_ns);
  EXPECT_GT(most, 1);
  EXPECT_LE(most, 64);
  // The link was busy at most as long as the run, and moved every byte.
  EXPECT_LE(shared.result.kv_link_usage[0].busy_ns, shared.result.end_ns);
  EXPECT_GE(static_cast<double>(shared.result.kv_link_usage[0].busy_ns),
            shared.result.kv_link_usage[0].bytes / 5.0 - 1.0);
}

TEST(Disagg, ADecodePoolScaledFromZeroSeesTheRequestsWaitingForIt) {
  nlohmann::json j = pd_scenario(kInfiniband, 1, 0, 5.0);
  j["fleet"]["pools"][1]["autoscaler"] = {{"policy", "target_concurrency"},
                                          {"target_inputs", 8},
                                          {"min_replicas", 0},
                                          {"max_replicas", 2},
                                          {"evaluation_interval_s", 1},
                                          {"scale_up_delay_s", 0}};
  j["fleet"]["pools"][1]["cold_start"] = {{"provisioning_s", 5}};
  const FleetRun run = run_fleet_scenario(scenario_from(j));
  for (size_t i = 0; i < run.result.records.size(); ++i) {
    const RequestRecord& r = run.result.records[i];
    const HandoffRecord& h = run.result.handoffs[i];
    ASSERT_EQ(r.status, RequestStatus::finished) << i << ": " << r.reason;
    if (h.decode_replica < 0) continue;
    EXPECT_GE(h.transfer_start_ns, h.prefill_done_ns);
  }
  // The first requests waited for a decode replica's cold start.
  EXPECT_GT(run.result.handoffs[0].transfer_start_ns - run.result.handoffs[0].prefill_done_ns,
            5'000'000'000);
  EXPECT_GE(run.metrics.fleet.peak_replicas[1], 1);
}

TEST(Disagg, RerunsAreByteIdentical) {
  auto csv = [] {
    const FleetRun run = run_fleet_scenario(scenario_from(pd_scenario(kInfiniband)));
    std::ostringstream out;
    write_requests_csv(run.scenario, run.result, out);
    write_timeline_csv(run.result, out);
    return out.str();
  };
  EXPECT_EQ(csv(), csv());
}

TEST(Disagg, TheConsoleLineCountsTheTransfers) {
  nlohmann::json j = pd_scenario(kInfiniband, 1, 1);
  j["workloads"] = {{{"name", "two"},
                     {"generator",
                      {{"kind", "batch"},
                       {"num_requests", 2},
                       {"prompt", {{"dist", "fixed"}, {"value", 1000}}},
                       {"output", {{"dist", "fixed"}, {"value", 10}}}}}}};
  const FleetRun run = run_fleet_scenario(scenario_from(j));
  const std::string line = format_kv_transfer_line(run.scenario, run.result);
  EXPECT_EQ(line.rfind("kv moved    2 transfers, 0.3 GB   transfer mean ", 0), 0u) << line;
  nlohmann::json both = j;
  both.erase("kv_transfer");
  both["fleet"]["pools"] = {pool("a", "both", 1)};
  const FleetRun plain = run_fleet_scenario(scenario_from(both));
  EXPECT_EQ(format_kv_transfer_line(plain.scenario, plain.result), "");
}

TEST(Disagg, ScenariosWithoutRolesKeepTheirColumnsEmpty) {
  nlohmann::json j = pd_scenario(kInfiniband);
  j.erase("kv_transfer");
  j["fleet"]["pools"] = {pool("a", "both", 2)};
  const FleetRun run = run_fleet_scenario(scenario_from(j));
  // No hand-off part of a record is kept.
  EXPECT_TRUE(run.result.handoffs.empty());
  EXPECT_TRUE(run.result.kv_link_usage.empty());
}

void expect_error(const nlohmann::json& j, const std::string& needle) {
  try {
    scenario_from(j);
    ADD_FAILURE() << "no error; expected: " << needle;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Disagg, BadConfigurationsAreOneClearErrorEach) {
  nlohmann::json j = pd_scenario(kInfiniband);
  j.erase("kv_transfer");
  expect_error(j, "fleet.pools[0].role: prefill pool \"p\" has no kv_transfer link");

  j = pd_scenario(kInfiniband);
  j["fleet"]["pools"] = {pool("d", "decode", 1), pool("x", "both", 1)};
  j.erase("kv_transfer");
  expect_error(j, "fleet.pools[0].role: decode pool \"d\" has no kv_transfer link from a prefill");

  j = pd_scenario({{"from", "d"}, {"to", "p"}});
  expect_error(j, "kv_transfer.links[0].from: pool \"d\" has role decode");

  j = pd_scenario({{"from", "p"}, {"to", "nowhere"}});
  expect_error(j, "kv_transfer.links[0].to: no pool is named \"nowhere\"");

  j = pd_scenario({{"from", "p"}, {"to", "d"}, {"kind", "carrier-pigeon"}});
  expect_error(j, "kv_transfer.links[0].kind: unknown link kind \"carrier-pigeon\"");

  j = pd_scenario({{"from", "p"}, {"to", "d"}, {"gb_per_s_per_gpu", 0}});
  expect_error(j, "kv_transfer.links[0].gb_per_s_per_gpu: must be between");

  j = pd_scenario({{"from", "p"}, {"to", "d"}, {"gb_per_s", -1}});
  expect_error(j, "kv_transfer.links[0].gb_per_s: must be between");

  j = pd_scenario({{"from", "p"}, {"to", "d"}, {"latency_ms", -1}});
  expect_error(j, "kv_transfer.links[0].latency_ms");

  j = pd_scenario({{"from", "p"}, {"to", "d"}, {"bandwidth", 3}});
  expect_error(j, "kv_transfer.links[0].bandwidth: unknown key");

  j = pd_scenario(kInfiniband);
  j["kv_transfer"]["links"].push_back(kInfiniband);
  expect_error(j, "kv_transfer.links[1]: duplicates kv_transfer.links[0]");

  j = pd_scenario(kInfiniband);
  j["fleet"]["pools"][1]["model"] = "qwen3-8b";
  expect_error(j, "KV moves between pools of one model");

  j = pd_scenario(kInfiniband);
  j["fleet"]["pools"][0]["role"] = "both";
  j["fleet"]["pools"][1]["role"] = "both";
  expect_error(j, "kv_transfer: needs pools with role prefill and decode");

  j = pd_scenario(kInfiniband);
  j["kv_transfer"]["first_token_from"] = "router";
  expect_error(j,
               "kv_transfer.first_token_from: must be \"decode\" or \"prefill\", not \"router\"");

  j = pd_scenario(kInfiniband);
  j["fleet"]["pools"][0]["role"] = "encode";
  expect_error(j, "fleet.pools[0].role: unknown role \"encode\"");
}

}  // namespace
}  // namespace tidal::sim
