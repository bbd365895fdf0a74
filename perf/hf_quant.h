// A checkpoint's own quantization, from config.json's `quantization_config` or from the
// `hf_quant_config.json` NVIDIA ModelOpt writes beside it: the weight format, its scale bytes, and
// which parts of the model the checkpoint keeps unquantized (docs/models.md lists the mapping).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "perf/hf_config_keys.h"
#include "perf/model_spec.h"

namespace tidal::perf {

struct QuantLayout {
  int64_t num_layers = 0;
  std::vector<bool> moe_layer;  // [num_layers] true where experts replace the MLP; empty: dense
};

struct QuantReading {
  CheckpointQuant quant;           // method "" when the checkpoint is unquantized
  std::vector<std::string> notes;  // approximations
};

// `quantization_config`: config.json's (or its text_config's), or nullptr. `hf_quant_config`:
// the parsed hf_quant_config.json, or nullptr; read only when quantization_config is absent, and
// named `hf_quant_where` in errors.
QuantReading read_checkpoint_quant(const HfKeys* quantization_config,
                                   const nlohmann::json* hf_quant_config,
                                   const std::string& hf_quant_where, const QuantLayout& layout);

// What a module pattern of modules_to_not_convert / ignore / exclude_modules names.
enum class ModulePart {
  none,            // embeddings, LM head, norms, routers, indexers, MTP or vision modules
  attention,       // attention projections
  shared_experts,  // shared experts
  experts,         // routed experts
  dense_mlp,       // the projections of a dense MLP
  mlp_block,       // a layer's whole MLP or MoE block
  whole_layer,     // a whole decoder layer
  unknown,
};

struct ModuleTarget {
  ModulePart part = ModulePart::unknown;
  int64_t layer = -1;  // the decoder layer named, or -1 for every layer
};

// Layers at or past num_layers are the MTP layers DeepSeek-style checkpoints append: part none.
ModuleTarget classify_module_pattern(const std::string& pattern, int64_t num_layers);

}  // namespace tidal::perf
