#include "models/checkpoint.h"

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "base/output_files.h"

namespace tidal::models {

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path.string() + ": cannot open");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path.string() + ": invalid JSON: " + e.what());
  }
}

}  // namespace

Checkpoint::Checkpoint(const std::filesystem::path& dir) : dir_(dir) {
  if (!std::filesystem::is_directory(dir)) {
    throw InputError(dir.string() + ": not a checkpoint folder (no such directory)");
  }
  config_ = load_config(dir / "config.json");
  const std::filesystem::path index_path = dir / "model.safetensors.index.json";
  if (std::filesystem::exists(index_path)) {
    const nlohmann::json index = read_json(index_path);
    const auto weight_map = index.find("weight_map");
    if (!index.is_object() || weight_map == index.end() || !weight_map->is_object()) {
      throw InputError(index_path.string() + ": weight_map: required object is missing");
    }
    std::map<std::string, size_t> file_index;  // shard file name -> index into files_
    for (const auto& [name, file] : weight_map->items()) {
      if (!file.is_string()) {
        throw InputError(index_path.string() + ": weight_map." + name + ": must be a file name");
      }
      file_index.emplace(file.get<std::string>(), 0);
    }
    for (auto& [file, index_of_file] : file_index) {
      index_of_file = files_.size();
      files_.emplace_back(dir / file);
    }
    for (const auto& [name, file] : weight_map->items()) {
      const size_t i = file_index.at(file.get<std::string>());
      if (files_[i].find(name) == nullptr) {
        throw InputError(index_path.string() + ": weight_map." + name + ": " +
                         files_[i].path().string() + " does not hold this tensor");
      }
      file_of_tensor_.emplace(name, i);
    }
    return;
  }
  std::set<std::filesystem::path> shard_paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".safetensors") shard_paths.insert(entry.path());
  }
  if (shard_paths.empty()) throw InputError(dir.string() + ": no *.safetensors file");
  for (const std::filesystem::path& path : shard_paths) {
    files_.emplace_back(path);
    for (const auto& [name, info] : files_.back().tensors()) {
      const auto [it, inserted] = file_of_tensor_.emplace(name, files_.size() - 1);
      if (!inserted) {
        throw InputError(path.string() + ": tensor '" + name + "' is also in " +
                         files_[it->second].path().string());
      }
    }
  }
}

std::vector<float> Checkpoint::read(const std::string& name,
                                    const std::vector<int64_t>& shape) const {
  const auto it = file_of_tensor_.find(name);
  if (it == file_of_tensor_.end()) {
    throw InputError(dir_.string() + ": missing tensor '" + name + "' (expected shape " +
                     shape_text(shape) + ")");
  }
  const SafetensorsFile& file = files_[it->second];
  const TensorInfo& info = *file.find(name);
  if (info.shape != shape) {
    throw InputError(file.path().string() + ": tensor '" + name + "': shape " +
                     shape_text(info.shape) + " does not match the config's " + shape_text(shape));
  }
  return file.read_f32(info);
}

ModelWeights load_weights(const Checkpoint& checkpoint) {
  ModelWeights weights = empty_weights(checkpoint.config());
  visit_tensors(weights,
                [&](const std::string& name, const std::vector<int64_t>& shape,
                    std::vector<float>& values) { values = checkpoint.read(name, shape); });
  return weights;
}

ModelWeights load_weights(const std::filesystem::path& dir) {
  return load_weights(Checkpoint(dir));
}

void save_checkpoint(const ModelWeights& weights, const std::filesystem::path& dir,
                     TensorDType dtype) {
  if (weights.shard.world_size != 1) {
    throw std::invalid_argument("save_checkpoint: weights are a tensor-parallel shard");
  }
  visit_linears(weights, [](const std::string& name, const kernels::LinearWeight& w) {
    if (w.format != kernels::WeightFormat::f32) {
      throw std::invalid_argument("save_checkpoint: " + name + " is quantized");
    }
  });
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw InputError(dir.string() + ": cannot create folder: " + error.message());

  nlohmann::json config = config_to_json(weights.config);
  config["torch_dtype"] = dtype == TensorDType::bf16 ? "bfloat16" : "float32";
  base::write_output_text((dir / "config.json").string(), config.dump(2) + "\n");

  std::vector<TensorToWrite> tensors;
  visit_tensors(weights, [&](const std::string& name, const std::vector<int64_t>& shape,
                             const std::vector<float>& values) {
    tensors.push_back({name, shape, values.data()});
  });
  write_safetensors(dir / "model.safetensors", tensors, dtype);
}

}  // namespace tidal::models
