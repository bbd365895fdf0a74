#include "sim/perf/model_catalog.h"

#include <vector>

#include "sim/perf/catalog_data.h"
#include "sim/perf/json_reader.h"
#include "traces/input_error.h"

namespace tidal::perf {
namespace {

constexpr char kWhere[] = "sim/perf/catalog/models.json (compiled in)";

int64_t read_count(JsonObjectReader& entry, std::string_view key, int64_t min_value) {
  int64_t value = entry.integer(key);
  if (value < min_value) {
    throw_json_error(kWhere, entry.child_path(key), "must be >= " + std::to_string(min_value));
  }
  return value;
}

ModelSpec parse_model(JsonObjectReader& entry) {
  ModelSpec model;
  model.name = entry.string("name");
  for (const auto& alias : entry.at("aliases")) model.aliases.push_back(alias.get<std::string>());
  model.num_layers = read_count(entry, "num_layers", 1);
  model.hidden = read_count(entry, "hidden", 1);
  model.num_heads = read_count(entry, "num_heads", 1);
  model.num_kv_heads = read_count(entry, "num_kv_heads", 1);
  model.head_dim = read_count(entry, "head_dim", 1);
  model.intermediate = read_count(entry, "intermediate", 1);
  model.vocab = read_count(entry, "vocab", 1);
  model.gated_mlp = entry.boolean("gated_mlp");
  model.num_experts = read_count(entry, "num_experts", 0);
  model.num_active_experts = read_count(entry, "num_active_experts", 0);
  model.num_shared_experts = read_count(entry, "num_shared_experts", 0);
  model.moe_intermediate = read_count(entry, "moe_intermediate", 0);
  model.num_dense_layers = read_count(entry, "num_dense_layers", 0);
  model.tied_embeddings = entry.boolean("tied_embeddings");
  model.max_position = read_count(entry, "max_position", 1);
  model.source = entry.string("source");
  model.notes = entry.string("notes");
  entry.finish();
  if (model.num_heads % model.num_kv_heads != 0) {
    throw_json_error(kWhere, entry.path(), "num_kv_heads must divide num_heads");
  }
  if (model.is_moe() &&
      (model.num_active_experts < 1 || model.num_active_experts > model.num_experts ||
       model.moe_intermediate < 1 || model.num_dense_layers >= model.num_layers)) {
    throw_json_error(kWhere, entry.path(), "inconsistent MoE fields");
  }
  if (model.source.empty()) throw_json_error(kWhere, entry.child_path("source"), "empty");
  return model;
}

std::vector<ModelSpec> parse_catalog() {
  nlohmann::json root = nlohmann::json::parse(model_catalog_json());
  JsonObjectReader top(root, kWhere, "");
  top.string("units");
  const nlohmann::json& entries = top.at("models");
  top.finish();
  if (!entries.is_array()) throw_json_error(kWhere, "models", "must be an array");
  std::vector<ModelSpec> models;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    JsonObjectReader entry(entries[i], kWhere, "models[" + std::to_string(i) + "]");
    models.push_back(parse_model(entry));
  }
  return models;
}

const std::vector<ModelSpec>& catalog() {
  static const std::vector<ModelSpec> models = parse_catalog();
  return models;
}

}  // namespace

double ModelSpec::attention_params_per_layer() const {
  const double q_and_o = 2.0 * static_cast<double>(hidden * num_heads * head_dim);
  const double k_and_v = 2.0 * static_cast<double>(hidden * num_kv_heads * head_dim);
  return q_and_o + k_and_v;
}

double ModelSpec::dense_mlp_params() const {
  return (gated_mlp ? 3.0 : 2.0) * static_cast<double>(hidden * intermediate);
}

double ModelSpec::expert_params() const {
  return (gated_mlp ? 3.0 : 2.0) * static_cast<double>(hidden * moe_intermediate);
}

double ModelSpec::embedding_params() const {
  return (tied_embeddings ? 1.0 : 2.0) * static_cast<double>(vocab * hidden);
}

namespace {

// Params every layer has regardless of its MLP: attention, two norms; plus the final norm and
// the embeddings once.
double shared_params(const ModelSpec& m) {
  const double layers = static_cast<double>(m.num_layers);
  const double norms = (2.0 * layers + 1.0) * static_cast<double>(m.hidden);
  return layers * m.attention_params_per_layer() + norms + m.embedding_params();
}

double mlp_params(const ModelSpec& m, int64_t experts_per_moe_layer) {
  const double dense_layers = static_cast<double>(m.is_moe() ? m.num_dense_layers : m.num_layers);
  double params = dense_layers * m.dense_mlp_params();
  if (m.is_moe()) {
    const double router = static_cast<double>(m.hidden * m.num_experts);
    const double experts = static_cast<double>(experts_per_moe_layer + m.num_shared_experts);
    params += static_cast<double>(m.num_moe_layers()) * (router + experts * m.expert_params());
  }
  return params;
}

}  // namespace

double ModelSpec::total_params() const {
  return shared_params(*this) + mlp_params(*this, num_experts);
}

double ModelSpec::active_params() const {
  return shared_params(*this) + mlp_params(*this, num_active_experts);
}

const ModelSpec& find_model(std::string_view name, const std::string& json_path) {
  for (const ModelSpec& model : catalog()) {
    if (iequals(model.name, name)) return model;
    for (const std::string& alias : model.aliases) {
      if (iequals(alias, name)) return model;
    }
  }
  std::string known;
  for (const ModelSpec& model : catalog()) known += (known.empty() ? "" : ", ") + model.name;
  throw InputError(json_path + ": unknown model \"" + std::string(name) +
                   "\"; known models: " + known);
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const ModelSpec& model : catalog()) names.push_back(model.name);
  return names;
}

}  // namespace tidal::perf
