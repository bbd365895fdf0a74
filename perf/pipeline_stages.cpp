#include "perf/pipeline_stages.h"

#include <algorithm>
#include <cassert>

namespace tidal::perf {

std::vector<PipelineStage> split_layers(int64_t num_layers, int32_t pp) {
  assert(pp >= 1 && num_layers >= pp);
  std::vector<int64_t> num_stage_layers(static_cast<size_t>(pp), num_layers / pp);
  const int64_t remainder = num_layers % pp;
  for (int64_t i = 2; i < remainder + 2; ++i) ++num_stage_layers[static_cast<size_t>(pp - i)];
  std::vector<PipelineStage> stages(static_cast<size_t>(pp));
  int64_t first = 0;
  for (size_t s = 0; s < stages.size(); ++s) {
    stages[s].first_layer = first;
    stages[s].num_layers = num_stage_layers[s];
    first += num_stage_layers[s];
  }
  stages.front().has_embedding = true;
  stages.back().has_lm_head = true;
  return stages;
}

ModelSpec stage_layers_model(const ModelSpec& model, const PipelineStage& stage) {
  ModelSpec layers = model;
  const int64_t end = stage.first_layer + stage.num_layers;
  layers.num_layers = stage.num_layers;
  if (!model.layer_attention.empty()) {
    layers.layer_attention.assign(model.layer_attention.begin() + stage.first_layer,
                                  model.layer_attention.begin() + end);
  }
  if (model.is_moe()) {
    layers.num_dense_layers =
        std::clamp<int64_t>(model.num_dense_layers - stage.first_layer, 0, stage.num_layers);
  }
  layers.vocab = 0;
  return layers;
}

}  // namespace tidal::perf
