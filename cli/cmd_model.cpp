// `tidal model init|info|list`: wiring of the models/ and perf/ libraries to the command line.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "base/input_error.h"
#include "cli/commands.h"
#include "models/config.h"
#include "models/model_init.h"
#include "models/presets.h"
#include "perf/hf_config.h"
#include "perf/model_catalog.h"
#include "perf/model_describe.h"
#include "perf/model_resolve.h"

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

// What the simulator understands of MODEL: an engine preset, a catalog name, a config.json or a
// folder holding one.
perf::ModelSpec simulator_view(const std::string& model) {
  if (const std::optional<models::ModelConfig> preset = models::find_preset(model)) {
    perf::ModelSpec spec =
        perf::parse_hf_config(models::config_to_json(*preset), "preset " + model);
    spec.name = model;
    return spec;
  }
  return perf::resolve_model(nlohmann::json(model), std::filesystem::current_path(),
                             "tidal model info", "MODEL");
}

// What the engine's forward pass makes of MODEL (catalog names have no config file for it).
nlohmann::json engine_view(const std::string& model) {
  const bool is_file = models::find_preset(model) || std::filesystem::exists(model);
  if (!is_file) {
    return {{"supported", nullptr},
            {"reason", "a catalog entry: give the engine a config.json or checkpoint folder"}};
  }
  try {
    nlohmann::json view = models::describe_model(models::resolve_config(model, "MODEL"));
    view["supported"] = true;
    return view;
  } catch (const InputError& e) {
    return {{"supported", false}, {"reason", e.what()}};
  }
}

void add_info(CLI::App& model) {
  auto args = std::make_shared<ModelArgs>();
  CLI::App* info = model.add_subcommand(
      "info",
      "Print what tidal understood of a model (layers, attention per layer, experts, parameters, "
      "weight and KV-cache bytes, context) and whether the engine runs it, as JSON");
  info->add_option("model", args->config,
                   "a catalog name (tidal model list), a Hugging Face config.json, a checkpoint "
                   "folder, or an engine preset (" +
                       preset_list() + ")")
      ->required();
  info->callback([args] {
    nlohmann::ordered_json out;
    out["simulator"] = perf::describe_model(simulator_view(args->config));
    out["engine"] = nlohmann::ordered_json::parse(engine_view(args->config).dump());
    std::printf("%s\n", out.dump(2).c_str());
  });
}

void add_list(CLI::App& model) {
  CLI::App* list = model.add_subcommand("list", "List the model catalog: names, contexts, sources");
  list->callback([] {
    std::printf("%-28s %-12s %9s %9s %9s  %s\n", "name", "architecture", "context", "total",
                "active", "source");
    for (const std::string& name : perf::model_names()) {
      const perf::ModelSpec& m = perf::find_model(name, "catalog");
      std::printf("%-28s %-12s %9lld %8.1fB %8.1fB  %s\n", m.name.c_str(), m.architecture.c_str(),
                  static_cast<long long>(m.max_position), m.total_params() / 1e9,
                  m.active_params() / 1e9, m.source.c_str());
    }
  });
}

}  // namespace

void add_model_command(CLI::App& app) {
  CLI::App* model = app.add_subcommand("model", "Create and inspect models and checkpoints");
  model->require_subcommand(1);
  add_init(*model);
  add_info(*model);
  add_list(*model);
}

}  // namespace tidal::cli
