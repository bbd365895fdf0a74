// Hugging Face checkpoints: a folder with config.json and one or more *.safetensors files
// (model.safetensors.index.json maps tensor names to shards when there are several).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "models/config.h"
#include "models/model_weights.h"
#include "models/safetensors.h"

namespace tidal::models {

class Checkpoint {
 public:
  // InputError when config.json or the weights are missing or malformed.
  explicit Checkpoint(const std::filesystem::path& dir);

  const std::filesystem::path& dir() const { return dir_; }
  const ModelConfig& config() const { return config_; }
  // The tensor as fp32, after checking it exists with this shape and a float dtype
  // (InputError naming tensor and file otherwise): [product(shape)]
  std::vector<float> read(const std::string& name, const std::vector<int64_t>& shape) const;

 private:
  std::filesystem::path dir_;
  ModelConfig config_;
  std::vector<SafetensorsFile> files_;
  std::map<std::string, size_t> file_of_tensor_;  // name -> index into files_
};

// Every tensor the config requires, unquantized fp32.
ModelWeights load_weights(const Checkpoint& checkpoint);
ModelWeights load_weights(const std::filesystem::path& dir);

// Writes config.json + model.safetensors (F32 or BF16); load_weights gives back the same
// tensors (bf16-rounded for BF16). Weights must be full (unsharded) and unquantized.
void save_checkpoint(const ModelWeights& weights, const std::filesystem::path& dir,
                     TensorDType dtype);

}  // namespace tidal::models
