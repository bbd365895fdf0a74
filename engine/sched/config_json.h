// SchedulerConfig <-> the scenario's `scheduler` JSON object (keys as in docs/scheduler.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/sched/config.h"

namespace tidal::sched {

// Reads the keys present in `object` over the defaults. Throws InputError naming
// `json_path` + key for a non-object, an unknown key or a wrong type. Call validate() after
// (it needs the block manager's config).
SchedulerConfig parse_scheduler_config(const nlohmann::json& object, const std::string& json_path);

// Every key with its value (for echoing the resolved scenario).
nlohmann::json to_json(const SchedulerConfig& config);

}  // namespace tidal::sched
