// summary.json's `kv_transfer` section (docs/run-output.md): per link its transfers, bytes and
// busy time; over the requests handed off, how long they waited for a decode replica, how
// long their KV took to cross, and how long they queued at the decode replica.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario.h"
#include "sim/simulator.h"

namespace tidal::sim {

// Null for a scenario without disaggregated pools.
nlohmann::ordered_json kv_transfer_summary_json(const Scenario& scenario, const RunResult& result);

// The line `tidal simulate` prints for the transfers ("" without disaggregated pools), e.g.
// "kv moved    5,985 transfers, 1,127.7 GB   transfer mean 0.97 ms p99 3.39 ms   ...".
std::string format_kv_transfer_line(const Scenario& scenario, const RunResult& result);

}  // namespace tidal::sim
