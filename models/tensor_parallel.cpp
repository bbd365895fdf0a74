#include "models/tensor_parallel.h"

#include <stdexcept>

#include "base/input_error.h"

namespace tidal::models {

namespace {

// Rows [first, first + count) of a row-major [rows, cols] fp32 weight (column parallel).
kernels::LinearWeight row_slice(const kernels::LinearWeight& w, int64_t first, int64_t count) {
  std::vector<float> values(w.values.begin() + first * w.cols,
                            w.values.begin() + (first + count) * w.cols);  // [count, cols]
  return kernels::make_f32_linear(std::move(values), count, w.cols);
}

// Columns [first, first + count) of every row (row parallel: this rank's input slice).
kernels::LinearWeight column_slice(const kernels::LinearWeight& w, int64_t first, int64_t count) {
  std::vector<float> values;  // [rows, count]
  values.reserve(w.rows * count);
  for (int64_t r = 0; r < w.rows; ++r) {
    const auto row = w.values.begin() + r * w.cols;
    values.insert(values.end(), row + first, row + first + count);
  }
  return kernels::make_f32_linear(std::move(values), w.rows, count);
}

ExpertWeights shard_mlp(const ExpertWeights& mlp, int64_t first, int64_t count) {
  return {row_slice(mlp.gate, first, count), row_slice(mlp.up, first, count),
          column_slice(mlp.down, first, count)};
}

}  // namespace

void check_tensor_parallel(const ModelConfig& config, int world_size, const std::string& what) {
  if (world_size < 1) {
    throw InputError(what + ": must be at least 1 (got " + std::to_string(world_size) + ")");
  }
  for (const auto& [key, value] :
       {std::pair<const char*, int64_t>{"num_attention_heads", config.num_heads},
        {"num_key_value_heads", config.num_kv_heads},
        {"intermediate_size", config.intermediate_size}}) {
    if (value % world_size != 0) {
      throw InputError(what + ": " + std::to_string(world_size) + " must divide " + key + " (" +
                       std::to_string(value) + ")");
    }
  }
}

ModelWeights shard_weights(const ModelWeights& full, int rank, int world_size) {
  const ModelConfig& c = full.config;
  check_tensor_parallel(c, world_size, "tensor parallel size");
  if (full.shard.world_size != 1 || rank < 0 || rank >= world_size) {
    throw std::invalid_argument("shard_weights: needs full weights and 0 <= rank < world_size");
  }
  visit_linears(full, [](const std::string& name, const kernels::LinearWeight& w) {
    if (w.format != kernels::WeightFormat::f32) {
      throw std::invalid_argument("shard_weights: " + name + " is quantized; shard first");
    }
  });
  ModelWeights shard;
  shard.config = c;
  shard.shard = {rank, world_size, c.num_heads / world_size, c.num_kv_heads / world_size,
                 c.intermediate_size / world_size};
  shard.embed_tokens = full.embed_tokens;
  shard.final_norm = full.final_norm;
  shard.lm_head = full.lm_head;
  const int64_t q_count = shard.shard.num_heads * c.head_dim;
  const int64_t kv_count = shard.shard.num_kv_heads * c.head_dim;
  const int64_t mlp_count = shard.shard.intermediate_size;
  for (const LayerWeights& layer : full.layers) {
    LayerWeights out;
    out.input_norm = layer.input_norm;
    out.post_attn_norm = layer.post_attn_norm;
    out.q_proj = row_slice(layer.q_proj, rank * q_count, q_count);
    out.k_proj = row_slice(layer.k_proj, rank * kv_count, kv_count);
    out.v_proj = row_slice(layer.v_proj, rank * kv_count, kv_count);
    out.o_proj = column_slice(layer.o_proj, rank * q_count, q_count);
    if (c.is_moe()) {
      out.router = layer.router;
      for (const ExpertWeights& expert : layer.experts) {
        out.experts.push_back(shard_mlp(expert, rank * mlp_count, mlp_count));
      }
    } else {
      out.mlp = shard_mlp(layer.mlp, rank * mlp_count, mlp_count);
    }
    shard.layers.push_back(std::move(out));
  }
  return shard;
}

}  // namespace tidal::models
