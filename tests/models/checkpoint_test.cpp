// safetensors files and Hugging Face checkpoints: init -> save -> load gives identical tensors
// (F32 exactly, BF16 after rounding), F16 and sharded (index.json) checkpoints load, and bad
// files fail with errors naming the tensor and the file.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "kernels/numeric/bf16.h"
#include "kernels/numeric/fp16.h"
#include "models/checkpoint.h"
#include "models/model_init.h"
#include "models/presets.h"
#include "models/random_weights.h"
#include "tests/scratch_folder.h"

namespace tidal::models {
namespace {

class CheckpointTest : public ::testing::Test {
 protected:
  std::string error_of(const std::filesystem::path& dir) {
    try {
      load_weights(dir);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }

  // A folder per test; dir_, the checkpoint's folder in it, is not there until the test makes it.
  const ScratchFolder scratch_{"tidal_checkpoint_test",
                               ::testing::UnitTest::GetInstance()->current_test_info()->name()};
  const std::filesystem::path dir_ = scratch_.path() / "checkpoint";
};

// Every tensor of a and b, under the same names, equal after applying `round`.
template <typename Round>
void expect_same_tensors(const ModelWeights& loaded, const ModelWeights& original, Round round) {
  std::vector<std::pair<std::string, std::vector<float>>> expected;
  visit_tensors(original, [&](const std::string& name, const std::vector<int64_t>&,
                              const std::vector<float>& values) {
    std::vector<float> rounded(values.size());
    for (size_t i = 0; i < values.size(); ++i) rounded[i] = round(values[i]);
    expected.emplace_back(name, rounded);
  });
  size_t i = 0;
  visit_tensors(loaded, [&](const std::string& name, const std::vector<int64_t>&,
                            const std::vector<float>& values) {
    ASSERT_LT(i, expected.size());
    EXPECT_EQ(name, expected[i].first);
    EXPECT_EQ(values, expected[i].second) << name;
    ++i;
  });
  EXPECT_EQ(i, expected.size());
}

TEST_F(CheckpointTest, RoundTripF32IsExact) {
  for (const std::string preset : {"tiny", "tiny-llama3", "tiny-moe"}) {
    const ModelWeights original = random_weights(*find_preset(preset), 7);
    save_checkpoint(original, dir_ / preset, TensorDType::f32);
    const ModelWeights loaded = load_weights(dir_ / preset);
    EXPECT_EQ(loaded.config, original.config);
    expect_same_tensors(loaded, original, [](float v) { return v; });
    EXPECT_EQ(loaded.lm_head.has_value(), !original.config.tie_word_embeddings);
  }
}

TEST_F(CheckpointTest, RoundTripBf16RoundsToNearestEven) {
  const ModelWeights original = random_weights(*find_preset("tiny"), 8);
  save_checkpoint(original, dir_, TensorDType::bf16);
  expect_same_tensors(load_weights(dir_), original, kernels::round_to_bf16);
  EXPECT_EQ(std::filesystem::file_size(dir_ / "model.safetensors") % 2, 0u);
}

TEST_F(CheckpointTest, InitIsDeterministicAndSeeded) {
  const ModelConfig config = *find_preset("tiny");
  init_checkpoint(config, dir_ / "a", 5, TensorDType::bf16);
  init_checkpoint(config, dir_ / "b", 5, TensorDType::bf16);
  init_checkpoint(config, dir_ / "c", 6, TensorDType::bf16);
  const auto bytes = [](const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(bytes(dir_ / "a/model.safetensors"), bytes(dir_ / "b/model.safetensors"));
  EXPECT_NE(bytes(dir_ / "a/model.safetensors"), bytes(dir_ / "c/model.safetensors"));
  EXPECT_EQ(bytes(dir_ / "a/config.json"), bytes(dir_ / "b/config.json"));
  // Random weights are never zero and norms sit near one.
  const ModelWeights w = random_weights(config, 5);
  EXPECT_EQ(std::count(w.embed_tokens.begin(), w.embed_tokens.end(), 0.0f), 0);
  EXPECT_NEAR(w.final_norm[0], 1.0f, 0.1f);
}

TEST_F(CheckpointTest, MissingTensorIsNamed) {
  ModelWeights original = random_weights(*find_preset("tiny"), 9);
  save_checkpoint(original, dir_, TensorDType::f32);
  // Rewrite the file without one tensor.
  std::vector<TensorToWrite> tensors;
  visit_tensors(original, [&](const std::string& name, const std::vector<int64_t>& shape,
                              const std::vector<float>& values) {
    if (name != "model.layers.1.mlp.up_proj.weight")
      tensors.push_back({name, shape, values.data()});
  });
  write_safetensors(dir_ / "model.safetensors", tensors, TensorDType::f32);
  EXPECT_EQ(error_of(dir_), dir_.string() +
                                ": missing tensor 'model.layers.1.mlp.up_proj.weight' (expected "
                                "shape [128, 64])");
}

TEST_F(CheckpointTest, WrongShapeIsNamedWithFile) {
  ModelWeights original = random_weights(*find_preset("tiny"), 10);
  save_checkpoint(original, dir_, TensorDType::f32);
  std::vector<TensorToWrite> tensors;
  visit_tensors(original, [&](const std::string& name, const std::vector<int64_t>& shape,
                              const std::vector<float>& values) {
    std::vector<int64_t> written = shape;
    if (name == "model.layers.0.self_attn.k_proj.weight") written = {shape[1], shape[0]};
    tensors.push_back({name, written, values.data()});
  });
  write_safetensors(dir_ / "model.safetensors", tensors, TensorDType::f32);
  EXPECT_EQ(error_of(dir_), (dir_ / "model.safetensors").string() +
                                ": tensor 'model.layers.0.self_attn.k_proj.weight': shape [64, "
                                "32] does not match the config's [32, 64]");
}

TEST_F(CheckpointTest, WrongDtypeAndBrokenHeadersAreErrors) {
  std::filesystem::create_directories(dir_);
  const auto write_raw = [&](const std::string& header, size_t data_bytes) {
    std::ofstream out(dir_ / "model.safetensors", std::ios::binary | std::ios::trunc);
    uint64_t length = header.size();
    out.write(reinterpret_cast<const char*>(&length), 8);
    out << header << std::string(data_bytes, '\0');
  };
  write_raw(R"({"t": {"dtype": "I64", "shape": [2], "data_offsets": [0, 16]}})", 16);
  SafetensorsFile file(dir_ / "model.safetensors");
  try {
    file.read_f32(*file.find("t"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir_ / "model.safetensors").string() +
                  ": tensor 't': dtype I64 is not supported (F32, BF16, F16)");
  }
  write_raw(R"({"t": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 16]}})", 16);
  EXPECT_THROW(SafetensorsFile(dir_ / "model.safetensors"), InputError);  // 24 bytes needed
  write_raw(R"({"t": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", 8);
  EXPECT_THROW(SafetensorsFile(dir_ / "model.safetensors"), InputError);  // past the end
  write_raw(R"({"t": )", 0);
  EXPECT_THROW(SafetensorsFile(dir_ / "model.safetensors"), InputError);  // bad JSON
  {
    std::ofstream out(dir_ / "model.safetensors", std::ios::binary | std::ios::trunc);
    out << "abc";
  }
  EXPECT_THROW(SafetensorsFile(dir_ / "model.safetensors"), InputError);  // too short
  EXPECT_THROW(SafetensorsFile(dir_ / "missing.safetensors"), InputError);
  EXPECT_NE(error_of(dir_ / "nowhere").find("not a checkpoint folder"), std::string::npos);
  EXPECT_NE(error_of(dir_).find("config.json: cannot open model config"), std::string::npos);
}

TEST_F(CheckpointTest, F16AndShardedCheckpointsLoad) {
  const ModelWeights original = random_weights(*find_preset("tiny-moe"), 11);
  save_checkpoint(original, dir_, TensorDType::f32);  // for config.json
  std::filesystem::remove(dir_ / "model.safetensors");
  // Two shards written by hand: F16 for the first half of the tensors, F32 for the rest.
  std::vector<std::tuple<std::string, std::vector<int64_t>, const std::vector<float>*>> all;
  visit_tensors(original,
                [&](const std::string& name, const std::vector<int64_t>& shape,
                    const std::vector<float>& values) { all.emplace_back(name, shape, &values); });
  nlohmann::json index = {{"metadata", {{"total_size", 0}}},
                          {"weight_map", nlohmann::json::object()}};
  nlohmann::json header0 = nlohmann::json::object();
  std::string data0;
  std::vector<TensorToWrite> rest;
  for (size_t i = 0; i < all.size(); ++i) {
    const auto& [name, shape, values] = all[i];
    if (i < all.size() / 2) {
      const size_t begin = data0.size();
      for (float v : *values) {
        const uint16_t bits = kernels::float_to_fp16(v);
        data0.append(reinterpret_cast<const char*>(&bits), 2);
      }
      header0[name] = {{"dtype", "F16"}, {"shape", shape}, {"data_offsets", {begin, data0.size()}}};
      index["weight_map"][name] = "model-00001-of-00002.safetensors";
    } else {
      rest.push_back({name, shape, values->data()});
      index["weight_map"][name] = "model-00002-of-00002.safetensors";
    }
  }
  {
    const std::string header = header0.dump();
    std::ofstream out(dir_ / "model-00001-of-00002.safetensors", std::ios::binary);
    uint64_t length = header.size();
    out.write(reinterpret_cast<const char*>(&length), 8);
    out << header << data0;
  }
  write_safetensors(dir_ / "model-00002-of-00002.safetensors", rest, TensorDType::f32);
  {
    std::ofstream out(dir_ / "model.safetensors.index.json");
    out << index.dump(2);
  }
  const ModelWeights loaded = load_weights(dir_);
  size_t i = 0;
  visit_tensors(loaded, [&](const std::string& name, const std::vector<int64_t>&,
                            const std::vector<float>& values) {
    const std::vector<float>& expected = *std::get<2>(all[i]);
    EXPECT_EQ(name, std::get<0>(all[i]));
    for (size_t j = 0; j < values.size(); ++j) {
      const float want = i < all.size() / 2
                             ? kernels::fp16_to_float(kernels::float_to_fp16(expected[j]))
                             : expected[j];
      ASSERT_EQ(values[j], want) << name << "[" << j << "]";
    }
    ++i;
  });
  // An index naming a file that lacks the tensor is an error naming both.
  index["weight_map"]["model.norm.weight"] = "model-00001-of-00002.safetensors";
  {
    std::ofstream out(dir_ / "model.safetensors.index.json");
    out << index.dump(2);
  }
  EXPECT_NE(error_of(dir_).find("weight_map.model.norm.weight: "), std::string::npos);
}

}  // namespace
}  // namespace tidal::models
