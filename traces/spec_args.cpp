// Generator specs from command-line words and from files.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/input_error.h"
#include "traces/generators.h"

namespace tidal::traces {
namespace {

// Sets spec[a][b]... for the dotted key "a.b", creating objects on the way.
void assign(nlohmann::json& spec, const std::string& dotted_key, const std::string& text) {
  nlohmann::json* node = &spec;
  std::string key;
  std::istringstream parts(dotted_key);
  std::vector<std::string> path;  // [num_key_parts]
  while (std::getline(parts, key, '.')) {
    if (key.empty()) throw InputError("generator argument '" + dotted_key + "': empty key part");
    path.push_back(key);
  }
  if (path.empty()) throw InputError("generator argument '=" + text + "': missing key");
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    nlohmann::json& child = (*node)[path[i]];
    if (child.is_null()) child = nlohmann::json::object();
    if (!child.is_object()) {
      throw InputError("generator argument '" + dotted_key + "': '" + path[i] +
                       "' already holds a value");
    }
    node = &child;
  }
  if (node->contains(path.back())) {
    throw InputError("generator argument '" + dotted_key + "': given twice");
  }
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  (*node)[path.back()] = value.is_discarded() ? nlohmann::json(text) : value;
}

std::string normalise_key(std::string key) {
  for (char& c : key) {
    if (c == '-') c = '_';
  }
  return key;
}

}  // namespace

nlohmann::json spec_from_args(std::string_view kind, const std::vector<std::string>& args) {
  nlohmann::json spec = {{"kind", std::string(kind)}};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    const bool is_flag = word.starts_with("--");
    const std::string body = is_flag ? word.substr(2) : word;
    const size_t equals = body.find('=');
    if (equals != std::string::npos) {
      assign(spec, normalise_key(body.substr(0, equals)), body.substr(equals + 1));
    } else if (is_flag) {
      if (i + 1 == args.size()) throw InputError("generator argument '" + word + "' needs a value");
      assign(spec, normalise_key(body), args[++i]);
    } else {
      throw InputError("generator argument '" + word +
                       "': expected key=value, --key value or --key=value");
    }
  }
  return spec;
}

nlohmann::json read_spec_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path + ": is a directory, not a generator spec");
  }
  std::ifstream file(path);
  if (!file) throw InputError(path + ": cannot open the generator spec");
  try {
    return nlohmann::json::parse(file);
  } catch (const nlohmann::json::parse_error& error) {
    throw InputError(path + ": invalid JSON: " + error.what());
  }
}

}  // namespace tidal::traces
