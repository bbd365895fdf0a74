// Pipeline parallelism's layout (Deployment::pp): which decoder layers each stage holds, and the
// model one stage runs. Each stage is a group of tp GPUs; the first stage also holds the input
// embedding, the last the final norm and the LM head (both when the embeddings are tied).
#pragma once

#include <cstdint>
#include <vector>

#include "perf/model_spec.h"

namespace tidal::perf {

struct PipelineStage {
  int64_t first_layer = 0;
  int64_t num_layers = 0;
  bool has_embedding = false;  // the input embedding (first stage)
  bool has_lm_head = false;    // the final norm and the LM head (last stage)
};

// Splits num_layers >= pp >= 1 layers over pp stages as vLLM does (get_pp_indices,
// vllm/distributed/utils.py, v0.11): floor(num_layers / pp) each, and the remainder one more each
// on the stages before the last, from the second-to-last backwards (the last stage keeps the LM
// head, the first the embedding). [pp] stages in order.
std::vector<PipelineStage> split_layers(int64_t num_layers, int32_t pp);

// The decoder layers of `stage` as a model of their own (num_layers, layer_attention and the
// dense/MoE split of those layers; an MoE model's dense layers are its leading ones) with no
// embedding or LM head (vocab 0): priced and laid out per stage by the memory plan and
// PipelineStepModel, which add the embedding and LM head to the stages that hold them.
ModelSpec stage_layers_model(const ModelSpec& model, const PipelineStage& stage);

}  // namespace tidal::perf
