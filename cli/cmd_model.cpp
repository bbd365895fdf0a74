// `tidal model init|info`: wiring of the models/ library to the command line.
#include <cstdio>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "models/model_init.h"
#include "models/presets.h"

namespace tidal::cli {
namespace {

struct ModelArgs {
  std::string config;
  std::string out;
  std::string dtype = "f32";
  uint64_t seed = 0;
};

std::string preset_list() {
  std::string names;
  for (const std::string& name : models::preset_names())
    names += (names.empty() ? "" : ", ") + name;
  return names;
}

void add_init(CLI::App& model) {
  auto args = std::make_shared<ModelArgs>();
  CLI::App* init = model.add_subcommand(
      "init", "Write a checkpoint (config.json + model.safetensors) with seeded random weights");
  init->add_option("--config", args->config,
                   "a config.json, a checkpoint folder, or a preset (" + preset_list() + ")")
      ->required();
  init->add_option("--out", args->out, "output folder")->required();
  init->add_option("--seed", args->seed, "random seed (default 0)");
  init->add_option("--dtype", args->dtype, "tensor dtype in the file: f32 or bf16 (default f32)");
  init->callback([args] {
    const models::ModelConfig config = models::resolve_config(args->config, "--config");
    models::init_checkpoint(config, args->out, args->seed,
                            models::parse_storage_dtype(args->dtype, "--dtype"));
    std::printf("wrote %s (%lld parameters, seed %llu, %s)\n", args->out.c_str(),
                static_cast<long long>(config.num_parameters()),
                static_cast<unsigned long long>(args->seed), args->dtype.c_str());
  });
}

void add_info(CLI::App& model) {
  auto args = std::make_shared<ModelArgs>();
  CLI::App* info = model.add_subcommand(
      "info", "Print a model's config, parameter counts, weight and KV-cache bytes as JSON");
  info->add_option("model", args->config,
                   "a checkpoint folder, a config.json, or a preset (" + preset_list() + ")")
      ->required();
  info->callback([args] {
    const models::ModelConfig config = models::resolve_config(args->config, "model");
    std::printf("%s\n", models::describe_model(config).dump(2).c_str());
  });
}

}  // namespace

void add_model_command(CLI::App& app) {
  CLI::App* model = app.add_subcommand("model", "Create and inspect model checkpoints");
  model->require_subcommand(1);
  add_init(*model);
  add_info(*model);
}

}  // namespace tidal::cli
