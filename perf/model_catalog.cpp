#include "perf/model_catalog.h"

#include <vector>

#include "base/input_error.h"
#include "perf/catalog_data.h"
#include "perf/hf_config.h"
#include "perf/json_reader.h"

namespace tidal::perf {
namespace {

constexpr char kWhere[] = "perf/catalog/models.json (compiled in)";

// An entry: {"name", "aliases", "source", "notes", "config": {Hugging Face config keys}}. The
// entry's notes come first, then the reader's.
ModelSpec parse_entry(JsonObjectReader& entry) {
  const std::string name = entry.string("name");
  std::vector<std::string> aliases;
  const nlohmann::json& alias_list = entry.at("aliases");
  if (!alias_list.is_array()) throw_json_error(kWhere, entry.child_path("aliases"), "not an array");
  for (const auto& alias : alias_list) {
    if (!alias.is_string()) throw_json_error(kWhere, entry.child_path("aliases"), "not a string");
    aliases.push_back(alias.get<std::string>());
  }
  const std::string source = entry.string("source");
  const std::string notes = entry.string("notes");
  const nlohmann::json& config = entry.at("config");
  entry.finish();
  if (source.empty()) throw_json_error(kWhere, entry.child_path("source"), "empty");
  ModelSpec model =
      parse_hf_config(config, std::string(kWhere) + ": " + entry.child_path("config"));
  model.name = name;
  model.aliases = aliases;
  model.source = source;
  if (!notes.empty()) model.notes = model.notes.empty() ? notes : notes + "; " + model.notes;
  return model;
}

std::vector<ModelSpec> parse_catalog() {
  nlohmann::json root = nlohmann::json::parse(model_catalog_json());
  JsonObjectReader top(root, kWhere, "");
  top.string("about");
  const nlohmann::json& entries = top.at("models");
  top.finish();
  if (!entries.is_array()) throw_json_error(kWhere, "models", "must be an array");
  std::vector<ModelSpec> models;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    JsonObjectReader entry(entries[i], kWhere, "models[" + std::to_string(i) + "]");
    models.push_back(parse_entry(entry));
  }
  return models;
}

const std::vector<ModelSpec>& catalog() {
  static const std::vector<ModelSpec> models = parse_catalog();
  return models;
}

}  // namespace

const ModelSpec* lookup_model(std::string_view name) {
  for (const ModelSpec& model : catalog()) {
    if (iequals(model.name, name)) return &model;
    for (const std::string& alias : model.aliases) {
      if (iequals(alias, name)) return &model;
    }
  }
  return nullptr;
}

const ModelSpec& find_model(std::string_view name, const std::string& json_path) {
  if (const ModelSpec* model = lookup_model(name)) return *model;
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

std::vector<ModelListing> model_listings() {
  std::vector<ModelListing> listings;
  for (const ModelSpec& m : catalog()) {
    listings.push_back({m.name, m.architecture, m.source, m.max_position});
  }
  return listings;
}

}  // namespace tidal::perf
