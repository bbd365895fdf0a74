#include <sstream>

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "base/output_files.h"
#include "perf/json_reader.h"
#include "perf/profile.h"

namespace tidal::perf {
namespace {

constexpr char kFormat[] = "tidal-profile-v1";

std::string_view source_name(TimeSource source) {
  return source == TimeSource::measured ? "measured" : "roofline";
}

TimeSource parse_source(JsonObjectReader& reader, std::string_view key) {
  const std::string text = reader.string(key);
  if (text == "measured") return TimeSource::measured;
  if (text == "roofline") return TimeSource::roofline;
  throw_json_error(reader.where(), reader.child_path(key),
                   "must be \"measured\" or \"roofline\" (got \"" + text + "\")");
}

bool is_table_op(OpClass op) {
  return op != OpClass::attention_prefill && op != OpClass::attention_decode &&
         op != OpClass::allreduce && op != OpClass::cpu_overhead;
}

// ---- validation ---------------------------------------------------------------------------

template <typename T>
void check_axis(const std::vector<T>& axis, const std::string& where, const std::string& path) {
  if (axis.empty()) throw_json_error(where, path, "must have at least one point");
  if (axis.front() < 0) throw_json_error(where, path + "[0]", "must be >= 0");
  for (std::size_t i = 1; i < axis.size(); ++i) {
    if (!(axis[i] > axis[i - 1])) {
      throw_json_error(where, path + "[" + std::to_string(i) + "]",
                       "must be greater than the previous value");
    }
  }
  if (!(axis.back() > 0)) throw_json_error(where, path, "last point must be > 0");
}

void check_values(const std::vector<double>& values, std::size_t expected, const std::string& where,
                  const std::string& path) {
  if (values.size() != expected) {
    throw_json_error(
        where, path,
        "has " + std::to_string(values.size()) + " values, expected " + std::to_string(expected));
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!(values[i] >= 0))
      throw_json_error(where, path + "[" + std::to_string(i) + "]", "must be >= 0");
  }
}

// ---- reading ------------------------------------------------------------------------------

OperatorTable read_operator(JsonObjectReader reader) {
  OperatorTable table;
  const std::string scope = reader.string("scope");
  if (scope == "layer") {
    table.scope = OpScope::layer;
  } else if (scope == "step") {
    table.scope = OpScope::step;
  } else {
    throw_json_error(reader.where(), reader.child_path("scope"),
                     "must be \"layer\" or \"step\" (got \"" + scope + "\")");
  }
  table.source = parse_source(reader, "source");
  if (table.source == TimeSource::measured) {
    table.num_tokens = reader.integer_array("num_tokens");
    table.seconds = reader.number_array("seconds");
  }
  reader.finish();
  return table;
}

// Reads {"<rows_key>": [...], "<cols_key>": [...], "seconds": [[...], ...]}.
void read_grid(JsonObjectReader reader, std::string_view rows_key, std::string_view cols_key,
               std::vector<int64_t>* rows, std::vector<int64_t>* cols,
               std::vector<double>* values) {
  *rows = reader.integer_array(rows_key);
  *cols = reader.integer_array(cols_key);
  const nlohmann::json& grid = reader.at("seconds");
  const std::string path = reader.child_path("seconds");
  if (!grid.is_array()) throw_json_error(reader.where(), path, "must be an array of rows");
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const std::string row_path = path + "[" + std::to_string(i) + "]";
    if (!grid[i].is_array()) throw_json_error(reader.where(), row_path, "must be an array");
    if (grid[i].size() != cols->size()) {
      throw_json_error(reader.where(), row_path,
                       "has " + std::to_string(grid[i].size()) + " values, expected " +
                           std::to_string(cols->size()));
    }
    for (std::size_t j = 0; j < grid[i].size(); ++j) {
      if (!grid[i][j].is_number()) {
        throw_json_error(reader.where(), row_path + "[" + std::to_string(j) + "]",
                         "must be a number");
      }
      values->push_back(grid[i][j].get<double>());
    }
  }
  if (grid.size() != rows->size()) {
    throw_json_error(
        reader.where(), path,
        "has " + std::to_string(grid.size()) + " rows, expected " + std::to_string(rows->size()));
  }
  reader.finish();
}

Profile read_profile(const nlohmann::json& root, const std::string& where) {
  JsonObjectReader top(root, where, "");
  Profile profile;
  const std::string format = top.string("format");
  if (format != kFormat) {
    throw_json_error(where, "format",
                     "must be \"" + std::string(kFormat) + "\" (got \"" + format + "\")");
  }
  {
    JsonObjectReader p = top.object("provenance");
    profile.provenance = {p.string("backend"), p.string("device"), p.string("date"),
                          p.string("commit"), p.string("source")};
    p.finish();
  }
  {
    JsonObjectReader m = top.object("model");
    profile.model.name = m.string("name");
    profile.model.hidden = m.integer("hidden");
    profile.model.num_heads = m.integer("num_heads");
    profile.model.num_kv_heads = m.integer("num_kv_heads");
    profile.model.intermediate = m.integer("intermediate");
    profile.model.vocab = m.integer("vocab");
    profile.model.gated_mlp = m.boolean("gated_mlp");
    m.finish();
  }
  const int64_t tp = top.integer("tp");
  if (tp < 1 || tp > 1024) throw_json_error(where, "tp", "must be in [1, 1024]");
  profile.tp = static_cast<int32_t>(tp);
  profile.weight_dtype = parse_dtype(top.string("weight_dtype"), where + ": weight_dtype");
  profile.kv_dtype = parse_dtype(top.string("kv_dtype"), where + ": kv_dtype");
  {
    JsonObjectReader ops = top.object("operators");
    const nlohmann::json& object = top.at("operators");
    for (auto it = object.begin(); it != object.end(); ++it) {
      OpClass op;
      if (!parse_op_class(it.key(), &op) || !is_table_op(op)) {
        throw_json_error(where, ops.child_path(it.key()), "unknown operator");
      }
      profile.operators.emplace(op, read_operator(ops.object(it.key())));
    }
    ops.finish();
  }
  profile.attention_source = parse_source(top, "attention_source");
  if (profile.attention_source == TimeSource::measured) {
    JsonObjectReader attention = top.object("attention");
    read_grid(attention.object("prefill"), "chunk_tokens", "context_tokens",
              &profile.attention.prefill_chunk_tokens, &profile.attention.prefill_context_tokens,
              &profile.attention.prefill_seconds);
    read_grid(attention.object("decode"), "batch_sizes", "context_tokens",
              &profile.attention.decode_batch_sizes, &profile.attention.decode_context_tokens,
              &profile.attention.decode_seconds);
    attention.finish();
  } else if (top.has("attention")) {
    throw_json_error(where, "attention", "must be absent when attention_source is \"roofline\"");
  }
  {
    JsonObjectReader allreduce = top.object("allreduce");
    profile.allreduce.source = parse_source(allreduce, "source");
    if (profile.allreduce.source == TimeSource::measured) {
      profile.allreduce.bytes = allreduce.number_array("bytes");
      profile.allreduce.seconds = allreduce.number_array("seconds");
    }
    allreduce.finish();
  }
  {
    JsonObjectReader cpu = top.object("cpu_overhead");
    profile.cpu_overhead.source = parse_source(cpu, "source");
    if (profile.cpu_overhead.source == TimeSource::measured) {
      profile.cpu_overhead.num_seqs = cpu.integer_array("num_seqs");
      profile.cpu_overhead.seconds = cpu.number_array("seconds");
      if (cpu.has("share_of_operator_time")) {
        profile.cpu_overhead.share_of_operator_time = cpu.number("share_of_operator_time");
      }
    }
    cpu.finish();
  }
  if (top.has("draft")) {
    JsonObjectReader draft = top.object("draft");
    DraftCost cost;
    cost.method = draft.string("method");
    const int64_t k = draft.integer("num_speculative_tokens");
    if (k < 1 || k > 16) {
      throw_json_error(where, draft.child_path("num_speculative_tokens"), "must be in [1, 16]");
    }
    cost.num_speculative_tokens = static_cast<int32_t>(k);
    cost.seconds_per_seq = draft.number("seconds_per_seq");
    cost.seconds_per_context_token = draft.number("seconds_per_context_token");
    draft.finish();
    profile.draft = cost;
  }
  top.finish();
  return profile;
}

// ---- writing ------------------------------------------------------------------------------

nlohmann::ordered_json grid_json(std::string_view rows_key, const std::vector<int64_t>& rows,
                                 std::string_view cols_key, const std::vector<int64_t>& cols,
                                 const std::vector<double>& values) {
  nlohmann::ordered_json grid;
  grid[std::string(rows_key)] = rows;
  grid[std::string(cols_key)] = cols;
  nlohmann::ordered_json seconds = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    seconds.push_back(
        std::vector<double>(values.begin() + static_cast<std::ptrdiff_t>(i * cols.size()),
                            values.begin() + static_cast<std::ptrdiff_t>((i + 1) * cols.size())));
  }
  grid["seconds"] = std::move(seconds);
  return grid;
}

nlohmann::ordered_json profile_json(const Profile& profile) {
  nlohmann::ordered_json root;
  root["format"] = kFormat;
  const ProfileProvenance& p = profile.provenance;
  root["provenance"] = {{"backend", p.backend},
                        {"device", p.device},
                        {"date", p.date},
                        {"commit", p.commit},
                        {"source", p.source}};
  const ProfileModel& m = profile.model;
  root["model"] = {{"name", m.name},
                   {"hidden", m.hidden},
                   {"num_heads", m.num_heads},
                   {"num_kv_heads", m.num_kv_heads},
                   {"intermediate", m.intermediate},
                   {"vocab", m.vocab},
                   {"gated_mlp", m.gated_mlp}};
  root["tp"] = profile.tp;
  root["weight_dtype"] = dtype_name(profile.weight_dtype);
  root["kv_dtype"] = dtype_name(profile.kv_dtype);
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (const auto& [op, table] : profile.operators) {
    nlohmann::ordered_json entry;
    entry["scope"] = table.scope == OpScope::layer ? "layer" : "step";
    entry["source"] = source_name(table.source);
    if (table.source == TimeSource::measured) {
      entry["num_tokens"] = table.num_tokens;
      entry["seconds"] = table.seconds;
    }
    ops[std::string(op_class_name(op))] = std::move(entry);
  }
  root["operators"] = std::move(ops);
  root["attention_source"] = source_name(profile.attention_source);
  if (profile.attention_source == TimeSource::measured) {
    const AttentionTables& a = profile.attention;
    root["attention"] = {
        {"prefill", grid_json("chunk_tokens", a.prefill_chunk_tokens, "context_tokens",
                              a.prefill_context_tokens, a.prefill_seconds)},
        {"decode", grid_json("batch_sizes", a.decode_batch_sizes, "context_tokens",
                             a.decode_context_tokens, a.decode_seconds)}};
  }
  nlohmann::ordered_json allreduce;
  allreduce["source"] = source_name(profile.allreduce.source);
  if (profile.allreduce.source == TimeSource::measured) {
    allreduce["bytes"] = profile.allreduce.bytes;
    allreduce["seconds"] = profile.allreduce.seconds;
  }
  root["allreduce"] = std::move(allreduce);
  nlohmann::ordered_json cpu;
  cpu["source"] = source_name(profile.cpu_overhead.source);
  if (profile.cpu_overhead.source == TimeSource::measured) {
    cpu["num_seqs"] = profile.cpu_overhead.num_seqs;
    cpu["seconds"] = profile.cpu_overhead.seconds;
    cpu["share_of_operator_time"] = profile.cpu_overhead.share_of_operator_time;
  }
  root["cpu_overhead"] = std::move(cpu);
  if (profile.draft) {
    root["draft"] = {{"method", profile.draft->method},
                     {"num_speculative_tokens", profile.draft->num_speculative_tokens},
                     {"seconds_per_seq", profile.draft->seconds_per_seq},
                     {"seconds_per_context_token", profile.draft->seconds_per_context_token}};
  }
  return root;
}

}  // namespace

void validate_profile(const Profile& profile, const std::string& where) {
  if (profile.tp < 1) throw_json_error(where, "tp", "must be >= 1");
  const ProfileModel& m = profile.model;
  if (m.hidden < 1 || m.num_heads < 1 || m.num_kv_heads < 1 || m.intermediate < 1 || m.vocab < 1) {
    throw_json_error(where, "model", "dimensions must be >= 1");
  }
  for (const auto& [op, table] : profile.operators) {
    const std::string path = "operators." + std::string(op_class_name(op));
    if (!is_table_op(op)) throw_json_error(where, path, "unknown operator");
    if (table.source == TimeSource::roofline) {
      if (!table.num_tokens.empty() || !table.seconds.empty()) {
        throw_json_error(where, path, "a roofline operator has no table");
      }
      continue;
    }
    check_axis(table.num_tokens, where, path + ".num_tokens");
    check_values(table.seconds, table.num_tokens.size(), where, path + ".seconds");
  }
  if (profile.attention_source == TimeSource::measured) {
    const AttentionTables& a = profile.attention;
    check_axis(a.prefill_chunk_tokens, where, "attention.prefill.chunk_tokens");
    if (a.prefill_chunk_tokens.front() < 1) {
      throw_json_error(where, "attention.prefill.chunk_tokens[0]",
                       "must be >= 1 (a chunk has at least one new token)");
    }
    check_axis(a.prefill_context_tokens, where, "attention.prefill.context_tokens");
    check_values(a.prefill_seconds, a.prefill_chunk_tokens.size() * a.prefill_context_tokens.size(),
                 where, "attention.prefill.seconds");
    check_axis(a.decode_batch_sizes, where, "attention.decode.batch_sizes");
    check_axis(a.decode_context_tokens, where, "attention.decode.context_tokens");
    check_values(a.decode_seconds, a.decode_batch_sizes.size() * a.decode_context_tokens.size(),
                 where, "attention.decode.seconds");
  } else {
    const AttentionTables& a = profile.attention;
    if (!a.prefill_chunk_tokens.empty() || !a.prefill_context_tokens.empty() ||
        !a.prefill_seconds.empty() || !a.decode_batch_sizes.empty() ||
        !a.decode_context_tokens.empty() || !a.decode_seconds.empty()) {
      throw_json_error(where, "attention", "roofline attention has no tables");
    }
  }
  if (profile.allreduce.source == TimeSource::roofline &&
      (!profile.allreduce.bytes.empty() || !profile.allreduce.seconds.empty())) {
    throw_json_error(where, "allreduce", "a roofline section has no table");
  }
  if (profile.cpu_overhead.source == TimeSource::roofline &&
      (!profile.cpu_overhead.num_seqs.empty() || !profile.cpu_overhead.seconds.empty())) {
    throw_json_error(where, "cpu_overhead", "a roofline section has no table");
  }
  if (profile.allreduce.source == TimeSource::measured) {
    check_axis(profile.allreduce.bytes, where, "allreduce.bytes");
    check_values(profile.allreduce.seconds, profile.allreduce.bytes.size(), where,
                 "allreduce.seconds");
  }
  if (profile.cpu_overhead.source == TimeSource::measured) {
    check_axis(profile.cpu_overhead.num_seqs, where, "cpu_overhead.num_seqs");
    check_values(profile.cpu_overhead.seconds, profile.cpu_overhead.num_seqs.size(), where,
                 "cpu_overhead.seconds");
    const double share = profile.cpu_overhead.share_of_operator_time;
    if (!(share >= -0.5 && share <= 1.0)) {
      throw_json_error(where, "cpu_overhead.share_of_operator_time", "must be in [-0.5, 1]");
    }
  }
  if (profile.draft) {
    if (profile.draft->method != "ngram") {
      throw_json_error(where, "draft.method",
                       "must be \"ngram\" (got \"" + profile.draft->method + "\")");
    }
    if (!(profile.draft->seconds_per_seq >= 0))
      throw_json_error(where, "draft.seconds_per_seq", "must be >= 0");
    if (!(profile.draft->seconds_per_context_token >= 0))
      throw_json_error(where, "draft.seconds_per_context_token", "must be >= 0");
  }
}

Profile load_profile(const std::string& path) {
  const nlohmann::json root = read_json_file(path, "profile");
  Profile profile = read_profile(root, path);
  validate_profile(profile, path);
  return profile;
}

void save_profile(const Profile& profile, const std::string& path) {
  validate_profile(profile, path);
  base::write_output_text(path, profile_json(profile).dump(2) + "\n");
}

}  // namespace tidal::perf
