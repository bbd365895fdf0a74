#include "engine/sched/config_json.h"

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>

#include "base/input_error.h"

namespace tidal::sched {

namespace {

constexpr std::array<std::string_view, 14> kKeys{"policy",
                                                 "admission",
                                                 "preemption",
                                                 "max_num_seqs",
                                                 "max_num_batched_tokens",
                                                 "watermark",
                                                 "max_model_len",
                                                 "static_batch_size",
                                                 "static_batch_timeout_s",
                                                 "num_speculative_tokens",
                                                 "queue_policy",
                                                 "fair_share_input_weight",
                                                 "fair_share_output_weight",
                                                 "schedule_ahead"};

std::string known_keys() {
  std::string list;
  for (const std::string_view key : kKeys) {
    if (!list.empty()) list += ", ";
    list += key;
  }
  return list;
}

void read(const nlohmann::json& value, const std::string& path, std::string& out) {
  if (!value.is_string()) throw InputError(path + ": must be a string");
  out = value.get<std::string>();
}

void read(const nlohmann::json& value, const std::string& path, int64_t& out) {
  if (!value.is_number_integer()) throw InputError(path + ": must be an integer");
  if (value.is_number_unsigned() &&
      value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    throw InputError(path + ": out of range");
  }
  out = value.get<int64_t>();
}

void read(const nlohmann::json& value, const std::string& path, int32_t& out) {
  int64_t wide = 0;
  read(value, path, wide);
  if (wide < std::numeric_limits<int32_t>::min() || wide > std::numeric_limits<int32_t>::max()) {
    throw InputError(path + ": out of range");
  }
  out = static_cast<int32_t>(wide);
}

void read(const nlohmann::json& value, const std::string& path, bool& out) {
  if (!value.is_boolean()) throw InputError(path + ": must be true or false");
  out = value.get<bool>();
}

void read(const nlohmann::json& value, const std::string& path, double& out) {
  if (!value.is_number()) throw InputError(path + ": must be a number");
  out = value.get<double>();
}

}  // namespace

SchedulerConfig parse_scheduler_config(const nlohmann::json& object, const std::string& json_path) {
  if (!object.is_object()) throw InputError(json_path + ": must be an object");
  SchedulerConfig c;
  for (const auto& [key, value] : object.items()) {
    const std::string path = json_path + "." + key;
    if (key == "policy") {
      read(value, path, c.policy);
    } else if (key == "admission") {
      read(value, path, c.admission);
    } else if (key == "preemption") {
      read(value, path, c.preemption);
    } else if (key == "max_num_seqs") {
      read(value, path, c.max_num_seqs);
    } else if (key == "max_num_batched_tokens") {
      read(value, path, c.max_num_batched_tokens);
    } else if (key == "watermark") {
      read(value, path, c.watermark);
    } else if (key == "max_model_len") {
      read(value, path, c.max_model_len);
    } else if (key == "static_batch_size") {
      read(value, path, c.static_batch_size);
    } else if (key == "static_batch_timeout_s") {
      read(value, path, c.static_batch_timeout_s);
    } else if (key == "num_speculative_tokens") {
      read(value, path, c.num_speculative_tokens);
    } else if (key == "queue_policy") {
      read(value, path, c.queue_policy);
    } else if (key == "fair_share_input_weight") {
      read(value, path, c.fair_share_input_weight);
    } else if (key == "fair_share_output_weight") {
      read(value, path, c.fair_share_output_weight);
    } else if (key == "schedule_ahead") {
      read(value, path, c.schedule_ahead);
    } else {
      throw InputError(path + ": unknown key (known: " + known_keys() + ")");
    }
  }
  return c;
}

nlohmann::json to_json(const SchedulerConfig& c) {
  return nlohmann::json{{"policy", c.policy},
                        {"admission", c.admission},
                        {"preemption", c.preemption},
                        {"max_num_seqs", c.max_num_seqs},
                        {"max_num_batched_tokens", c.max_num_batched_tokens},
                        {"watermark", c.watermark},
                        {"max_model_len", c.max_model_len},
                        {"static_batch_size", c.static_batch_size},
                        {"static_batch_timeout_s", c.static_batch_timeout_s},
                        {"num_speculative_tokens", c.num_speculative_tokens},
                        {"queue_policy", c.queue_policy},
                        {"fair_share_input_weight", c.fair_share_input_weight},
                        {"fair_share_output_weight", c.fair_share_output_weight},
                        {"schedule_ahead", c.schedule_ahead}};
}

}  // namespace tidal::sched
