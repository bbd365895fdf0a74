// load_hf_config: a config.json (and the hf_quant_config.json beside it) from disk, and the name
// the model goes by.
#include <fstream>
#include <optional>
#include <sstream>

#include "base/input_error.h"
#include "perf/hf_config.h"
#include "perf/hf_config_parse.h"

namespace tidal::perf {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kConfigSuffix = "_config.json";

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Python's json module writes NaN, Infinity and -Infinity for such floats; strict JSON has no
// spelling for them. Outside strings they become null.
std::string without_python_constants(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < text.size()) {
        out.push_back(text[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (std::string_view word : {"-Infinity", "Infinity", "NaN"}) {
      if (text.compare(i, word.size(), word) == 0) {
        out += "null";
        i += word.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out.push_back(c);
  }
  return out;
}

// "hf_quant_config.json" beside "config.json"; "<prefix>_hf_quant_config.json" beside
// "<prefix>_config.json".
std::optional<fs::path> quant_file_for(const fs::path& config_file) {
  const std::string name = config_file.filename().string();
  if (name == "config.json") return config_file.parent_path() / "hf_quant_config.json";
  if (ends_with(name, kConfigSuffix)) {
    const std::string prefix = name.substr(0, name.size() - kConfigSuffix.size());
    return config_file.parent_path() / (prefix + "_hf_quant_config.json");
  }
  return std::nullopt;
}

std::string model_name_for(const fs::path& config_file) {
  const std::string name = config_file.filename().string();
  if (name == "config.json") {
    const std::string folder = config_file.parent_path().filename().string();
    return folder.empty() ? "config" : folder;
  }
  const std::size_t separator = name.find("--");
  if (ends_with(name, kConfigSuffix) && separator != std::string::npos) {
    const std::string stem = name.substr(0, name.size() - kConfigSuffix.size());
    return stem.substr(0, separator) + "/" + stem.substr(separator + 2);
  }
  return config_file.stem().string();
}

}  // namespace

nlohmann::json read_hf_json_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file.string() + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(without_python_constants(text.str()));
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(file.string() + ": not valid JSON: " + e.what());
  }
}

ModelSpec load_hf_config(const fs::path& path) {
  std::error_code ec;
  fs::path file = path;
  if (!file.has_filename()) file = file.parent_path();  // "folder/"
  if (fs::is_directory(file, ec)) {
    file /= "config.json";
    if (!fs::is_regular_file(file, ec)) {
      throw InputError(path.string() + ": no config.json in this folder");
    }
  } else if (!fs::exists(file, ec)) {
    throw InputError(path.string() + ": no such file or folder");
  }
  const nlohmann::json config = read_hf_json_file(file);
  std::optional<nlohmann::json> quant;
  const std::optional<fs::path> quant_file = quant_file_for(file);
  if (quant_file && fs::is_regular_file(*quant_file, ec)) quant = read_hf_json_file(*quant_file);
  ModelSpec model = parse_hf_config_with_quant(config, file.string(), quant ? &*quant : nullptr,
                                               quant_file ? quant_file->string() : "");
  model.name = model_name_for(file);
  model.source = file.string();
  return model;
}

}  // namespace tidal::perf
