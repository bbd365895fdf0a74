#include "perf/model_resolve.h"

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/hf_config.h"
#include "perf/model_catalog.h"

namespace tidal::perf {
namespace {

namespace fs = std::filesystem;

std::string known_models() {
  std::string known;
  for (const std::string& name : model_names()) known += (known.empty() ? "" : ", ") + name;
  return known;
}

bool ends_with_json(const std::string& text) {
  return text.size() >= 5 && text.compare(text.size() - 5, 5, ".json") == 0;
}

ModelSpec from_file(const fs::path& path, const std::string& prefix) {
  try {
    return load_hf_config(path);
  } catch (const InputError& e) {
    throw InputError(prefix + ": " + e.what());
  }
}

}  // namespace

ModelSpec resolve_model(const nlohmann::json& value, const fs::path& base_dir,
                        const std::string& where, const std::string& json_path) {
  const std::string prefix = where + ": " + json_path;
  if (value.is_object()) {
    ModelSpec model = parse_hf_config(value, prefix);
    const auto name = value.find("_name_or_path");
    const bool named =
        name != value.end() && name->is_string() && !name->get<std::string>().empty();
    model.name = named ? name->get<std::string>() : json_path;
    model.source = prefix;
    return model;
  }
  if (!value.is_string()) {
    throw InputError(
        fmt::format("{}: expected a catalog name, a path to a config.json or an "
                    "inline config object, got {}",
                    prefix, value.type_name()));
  }
  const std::string text = value.get<std::string>();
  if (const ModelSpec* model = lookup_model(text)) return *model;
  const fs::path path = (base_dir / text).lexically_normal();
  std::error_code ec;
  if (!text.empty() && (ends_with_json(text) || fs::exists(path, ec))) {
    return from_file(path, prefix);
  }
  throw InputError(
      fmt::format("{}: unknown model \"{}\" (not a catalog name, and {} does not "
                  "exist); known models: {}",
                  prefix, text, path.string(), known_models()));
}

}  // namespace tidal::perf
