// The scenario's `kv_transfer` object, checked against the pools' roles (internal to the
// loader; docs/fleet.md, "Disaggregated prefill and decode").
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "sim/fleet/kv_links.h"
#include "sim/json_object.h"
#include "sim/scenario.h"

namespace tidal::sim {

// Reads `kv_transfer` from the scenario root. Every prefill pool needs a link to a decode pool
// and every decode pool one from a prefill pool; a link joins a prefill pool to a decode pool
// of the same model; `kv_transfer` without such pools is an error too.
// Reads the links into `scenario.kv_links` and `first_token_from` into
// `scenario.first_token_from`; the pools must be parsed already.
void parse_kv_transfer(JsonObject& root, Scenario& scenario);

// `kv_transfer` as summary.json echoes it (null without links); the links' egress_per_gb only
// `with_egress` (a scenario that prices egress somewhere, Scenario::prices_egress).
nlohmann::ordered_json kv_transfer_to_json(const Scenario& scenario, bool with_egress);

}  // namespace tidal::sim
