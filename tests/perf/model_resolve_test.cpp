// resolve_model's four forms (catalog name, config path, folder, inline object) and its error.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/hf_config.h"
#include "perf/hf_quant.h"
#include "perf/model_catalog.h"
#include "perf/model_resolve.h"
#include "tests/perf/hf_config_test_util.h"

namespace tidal::perf {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace hf_test;

TEST(ResolveModel, TakesCatalogNamesPathsFoldersAndInlineObjects) {
  const TempDir dir;
  const std::string where = "scenario.json";
  const std::string path = "fleet.pools[0].model";
  EXPECT_EQ(resolve_model("llama-3.1-8b", dir.path(), where, path).name, "llama-3.1-8b");
  EXPECT_EQ(resolve_model("meta-llama/Meta-Llama-3.1-8B", dir.path(), where, path).name,
            "llama-3.1-8b");

  dir.write("configs/mine_config.json", llama_config().dump());
  const ModelSpec file = resolve_model("configs/mine_config.json", dir.path(), where, path);
  EXPECT_EQ(file.name, "mine_config");  // the file stem: no "<org>--" in the name
  EXPECT_EQ(file.source, (dir.path() / "configs/mine_config.json").string());

  dir.write("ckpt/config.json", llama_config().dump());
  dir.write(
      "ckpt/hf_quant_config.json",
      json{{"quantization", {{"quant_algo", "FP8"}, {"exclude_modules", {"lm_head"}}}}}.dump());
  const ModelSpec folder = resolve_model("ckpt", dir.path(), where, path);
  EXPECT_EQ(folder.name, "ckpt");
  EXPECT_EQ(folder.quant.method, "fp8");
  EXPECT_EQ(folder.quant.not_converted, std::vector<std::string>{"lm_head"});

  const ModelSpec inline_model = resolve_model(llama_config(), dir.path(), where, path);
  EXPECT_EQ(inline_model.name, path);
  EXPECT_EQ(inline_model.hidden, 4096);
  json named = llama_config();
  named["_name_or_path"] = "acme/llama";
  EXPECT_EQ(resolve_model(named, dir.path(), where, path).name, "acme/llama");
}

TEST(ResolveModel, ExplainsWhatItTried) {
  const TempDir dir;
  std::string known;
  for (const std::string& name : model_names()) known += (known.empty() ? "" : ", ") + name;
  try {
    resolve_model("gpt-5", dir.path(), "scenario.json", "fleet.pools[0].model");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "scenario.json: fleet.pools[0].model: unknown model \"gpt-5\" (not a catalog name, "
              "and " +
                  (dir.path() / "gpt-5").string() + " does not exist); known models: " + known);
  }
  try {
    resolve_model("missing.json", dir.path(), "scenario.json", "fleet.pools[0].model");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "scenario.json: fleet.pools[0].model: " + (dir.path() / "missing.json").string() +
                  ": no such file or folder");
  }
  json inline_bad = llama_config();
  inline_bad.erase("vocab_size");
  try {
    resolve_model(inline_bad, dir.path(), "scenario.json", "fleet.pools[0].model");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "scenario.json: fleet.pools[0].model: vocab_size: absent");
  }
  EXPECT_THROW(resolve_model(json(42), dir.path(), "s", "m"), InputError);
}
}  // namespace
}  // namespace tidal::perf
