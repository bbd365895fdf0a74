// How a model is laid out in GPU memory: weights, KV cache, activation reserve.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "perf/dtype.h"
#include "perf/expert_load.h"
#include "perf/gpu_catalog.h"
#include "perf/model_catalog.h"

namespace tidal::perf {

// What gpu_memory_utilization is a share of: each engine reads its memory fraction its own way.
enum class MemoryFraction : uint8_t {
  device,         // vLLM's gpu_memory_utilization: weights + activations + KV in share x memory
  device_static,  // SGLang's mem_fraction_static: weights + KV in share x memory (activations and
                  // CUDA graphs live in the rest)
  free,           // TensorRT-LLM's free_gpu_memory_fraction: the KV cache takes share x (memory -
                  // weights - activations)
};
// "device", "device_static", "free".
std::string_view memory_fraction_name(MemoryFraction fraction);

// One replica's parallelism and numeric formats. A replica runs attention_dp attention ranks of
// tp GPUs each (tp x attention_dp GPUs, as TensorRT-LLM and AIConfigurator count them; SGLang's
// --tp is the replica's GPUs, so its --tp 8 --dp 8 --enable-dp-attention is tp 1, attention_dp 8):
// attention and the dense layers are split tp ways inside a rank, and every rank serves its own
// sequences with its own KV cache. The MoE layers span all the replica's GPUs: the routed experts
// are split over ep groups of moe_tp() GPUs each (docs/perf.md, "Expert and attention data
// parallelism").
struct Deployment {
  int32_t tp = 1;            // tensor-parallel degree of attention and dense layers, per rank
  int32_t attention_dp = 1;  // attention data-parallel ranks
  int32_t ep = 1;            // expert-parallel degree: groups the routed experts are split over
  ExpertLoad expert_load{};  // the routed experts' shares of the assignments (default balanced)
  int32_t pp = 1;            // pipeline stages, each tp x attention_dp GPUs (pipeline_stages.h)
  // The link between consecutive stages (activations of each micro-batch cross it): per-GPU
  // bandwidth and one-way latency (sim/scenario_pool_keys.cpp resolves the pool's pp_link).
  double pp_link_gb_per_s = 450.0;
  double pp_link_latency_s = 0.0;
  DType weight_dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  double gpu_memory_utilization = 0.9;  // share of device memory the engine may use
  MemoryFraction memory_fraction = MemoryFraction::device;  // what that share is of
  int32_t block_size = 16;                                  // KV block size in tokens
  int64_t max_num_batched_tokens = 8192;  // peak tokens in one forward pass (activation reserve)
  int64_t max_num_seqs = 256;  // sequences at once (sliding-window KV and recurrent-state reserve)
  // Linear-attention models: 0 reserves the recurrent state of max_num_seqs sequences; > 0 splits
  // the cache memory as SGLang's mamba_full_memory_ratio does (state : KV = ratio : 1) and
  // holds the states that fit, at most max_num_seqs (MemoryPlan::num_state_slots).
  double state_memory_ratio = 0.0;

  // GPUs of one replica: its pipeline stages' GPUs.
  int32_t num_gpus() const { return stage_gpus() * pp; }
  // GPUs of one pipeline stage (the whole replica without pipeline parallelism): the GPUs a
  // stage's layers are split over, experts included.
  int32_t stage_gpus() const { return tp * attention_dp; }
  // Tensor-parallel degree of each routed expert: a stage's GPUs over the ep groups.
  int32_t moe_tp() const { return stage_gpus() / ep; }
};

// Per GPU of the replica (num_kv_blocks: the whole replica). The engine reports the same figures.
//   usable   = memory_bytes * gpu_memory_utilization
//   kv_bytes = usable - weight_bytes_per_gpu - activation_reserve_bytes       (device)
//            = usable - weight_bytes_per_gpu                                   (device_static)
//            = gpu_memory_utilization * (memory_bytes - weight_bytes_per_gpu
//                                        - activation_reserve_bytes)           (free)
//   num_kv_blocks_per_rank = floor((kv_bytes - sliding_kv_reserve_bytes) /
//                                  (block_size * kv_bytes_per_token_per_gpu))
//   num_kv_blocks = num_kv_blocks_per_rank * attention_dp     (each rank keeps its own KV)
// With pipeline parallelism (pp > 1) each stage's GPUs hold that stage's layers
// (pipeline_stages.h), the first stage also the input embedding and the last the LM head; every
// stage plans its memory as above and the replica's blocks are the fewest any stage can hold (as
// vLLM takes the minimum over its workers). The per-GPU fields then describe that stage.
// A sliding-window layer keeps at most `sliding_window` tokens of each sequence, so its KV does
// not grow with the sequence: it is reserved per sequence slot (max_num_seqs sequences, each its
// window rounded up to whole blocks plus the block being filled), and the blocks the scheduler
// allocates per token carry only the layers that attend to every token. A model whose every layer
// slides has no such layers; its blocks then carry every layer (an over-estimate for sequences
// longer than the window, stated in docs/perf.md).
// A linear-attention layer keeps no KV, only a fixed recurrent state per sequence: the states of
// num_state_slots sequences are reserved the same way (state_reserve_bytes, subtracted beside the
// sliding reserve), and the replica runs at most that many sequences at once.
struct MemoryPlan {
  double weight_bytes_per_gpu = 0;
  double kv_bytes_per_token_per_gpu = 0;  // per block token: the growing layers, this GPU's share
  double sliding_kv_reserve_bytes = 0;    // sliding layers' windows for max_num_seqs sequences
  double state_reserve_bytes = 0;         // linear layers' states for num_state_slots sequences
  int64_t num_state_slots = 0;            // the replica's recurrent states; 0: no linear layers
  double activation_reserve_bytes = 0;    // runtime context + peak activations
  double kv_cache_bytes_per_gpu = 0;      // the budget the KV blocks and the reserve are cut from
  int64_t num_kv_blocks_per_rank = 0;     // blocks one attention rank holds (its GPUs' shards)
  int64_t num_kv_blocks = 0;              // the replica's: per rank x attention_dp
  // A token's KV on one GPU of every pipeline stage, summed (x tp: the bytes of a token's KV in
  // one attention rank, what a KV transfer or an offload tier moves), and the sliding reserve
  // likewise; without pipeline parallelism equal to the fields above.
  double kv_bytes_per_token_all_stages = 0;
  double sliding_kv_reserve_bytes_all_stages = 0;
  double state_bytes_per_seq_all_stages = 0;  // one sequence's recurrent state, one GPU a stage
};

// KV heads one GPU holds: num_kv_heads / tp, or 1 when tp is a multiple of num_kv_heads (heads
// are replicated, as vLLM does).
int64_t kv_heads_per_gpu(const ModelSpec& model, int32_t tp);

// Weight bytes one GPU holds: TP-split projections and shared experts (split tp ways in each
// attention rank), routed experts split over a stage's stage_gpus() GPUs (ep groups x moe_tp), in
// their served formats (weight_formats.h); replicated norms, routers and MLA down-projections;
// vocab-parallel embeddings.
double weight_bytes_per_gpu(const ModelSpec& model, const Deployment& deployment);

// KV bytes per token one GPU keeps in one layer: GQA 2 * kv_heads_per_gpu * head_dim values;
// MLA's latent (kv_lora_rank + qk_rope_head_dim values) whole on every rank, as vLLM and SGLang
// keep it.
double kv_bytes_per_token_per_layer_per_gpu(const ModelSpec& model, const Deployment& deployment);

// Bytes per block token (MemoryPlan::kv_bytes_per_token_per_gpu) and the sliding layers' reserve.
double kv_bytes_per_token_per_gpu(const ModelSpec& model, const Deployment& deployment);
double sliding_kv_reserve_bytes(const ModelSpec& model, const Deployment& deployment);

// One sequence's recurrent state on one GPU, every linear layer: each of the GPU's value heads
// keeps a key_head_dim x value_head_dim matrix in the state dtype, and the convolution the last
// conv_kernel - 1 tokens of its q, k and v channels (bf16). 0 without linear layers.
double recurrent_state_bytes_per_seq_per_gpu(const ModelSpec& model, const Deployment& deployment);

// Checks tp against the model's heads, ep and attention_dp against the model's experts and the
// other deployment fields; InputErrors as below, each naming its field under `json_path` ("PATH.tp:
// ..."), or alone where `json_path` is empty (a deployment given by command-line options: "tp:
// ...").
void check_deployment(const ModelSpec& model, const Deployment& deployment,
                      const std::string& json_path);

// Checks the deployment against the model and GPU and plans memory. `json_path` names the
// deployment object in the user's input (e.g. "scenario.json: fleet.pools[0]"); errors are
// InputErrors such as
//   "<json_path>.tp: 3 does not divide num_heads 32 of llama-3-8b"
//   "<json_path>.tp: 3 neither divides nor is a multiple of num_kv_heads 8 of llama-3-8b"
//   "<json_path>.ep: 3 does not divide num_experts 256 of deepseek-v3"
//   "<json_path>.ep: 8 needs an MoE model; llama-3-8b is dense"
//   "<json_path>.attention_dp: must be >= 1 (got 0)"
//   "<json_path>.pp: 100 stages for the 32 layers of llama-3-8b: at most one stage per layer"
//   "<json_path>: llama-2-70b does not fit on RTX-4090 at tp=1: weights 128.5 GiB + ..."
MemoryPlan plan_memory(const ModelSpec& model, const GpuSpec& gpu, const Deployment& deployment,
                       const std::string& json_path);

}  // namespace tidal::perf
