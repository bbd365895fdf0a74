// The engine presets: each figure beside the engine version and file it comes from. Figures the
// engines derive (by GPU, TP, model) are rules in engine_preset.h fed from here. Overheads no
// engine publishes are labelled "estimate" with the published points they were sized to;
// `tidal calibrate` fits them against measured runs.
//
// The engines' files were read from stored copies of their repositories; a copy newer than the
// named release is marked (check).
#include "perf/engine_preset.h"

#include <array>

namespace tidal::perf {
namespace {

const std::array<EnginePreset, 3>& presets() {
  static const std::array<EnginePreset, 3> kPresets{{
      {
          .name = "vllm",
          .version = "0.19",
          .label = "vLLM 0.19",
          .policy = "chunked_prefill",
          .admission = "max_utilization",
          .preemption = "recompute",
          .watermark = 0.0,
          .tiers = {{.min_gpu_memory_gib = 70,
                     .except_gpu_names = {"a100"},
                     .max_num_batched_tokens = 8192,
                     .max_num_seqs = 1024},
                    {.min_gpu_memory_gib = 0,
                     .except_gpu_names = {},
                     .max_num_batched_tokens = 2048,
                     .max_num_seqs = 256}},
          .seqs_capped_by_batched_tokens = true,
          .seqs_from_kv = {},
          .max_model_len_capped_by_batched_tokens = false,
          .limits_per_attention_rank = true,
          .prefix_caching = true,
          .block_size = 16,
          .memory_fraction = MemoryFraction::device,
          .gpu_memory_utilization = 0.9,
          .static_memory = {},
          .cuda_graph = {.seqs_factor = 2, .cap = 512},
          .async_scheduling = true,
          .step_overhead_async = {.base_s = 100e-6, .per_seq_s = 0.25e-6},
          .step_overhead_sync = {.base_s = 0.5e-3, .per_seq_s = 19.5e-6},
          .frontend_per_request_s = 2e-3,
          .detokenize_per_token_s = 5e-6,
          .sources =
              {
                  {"policy",
                   "vLLM 0.19 vllm/engine/arg_utils.py EngineArgs._set_default_args: the V1 "
                   "engine always chunks prefills (vllm/config/scheduler.py "
                   "enable_chunked_prefill = True); vllm/v1/core/sched/scheduler.py schedules "
                   "running requests, then waiting ones, under one token budget"},
                  {"admission",
                   "vLLM 0.19 vllm/v1/core/sched/scheduler.py: admits while "
                   "KVCacheManager.allocate_slots succeeds; a running request that cannot grow "
                   "preempts the last running one"},
                  {"preemption",
                   "vLLM 0.19 vllm/v1/core/sched/scheduler.py: a preempted request frees its "
                   "blocks and is recomputed (the V1 engine has no swap)"},
                  {"watermark",
                   "vllm/v1/core/kv_cache_manager.py KVCacheManager(watermark=0.0) (copy newer "
                   "than 0.19: check)"},
                  {"max_num_batched_tokens",
                   "vLLM 0.19 vllm/engine/arg_utils.py EngineArgs.get_batch_defaults, "
                   "OPENAI_API_SERVER usage context: 8192 on GPUs with >= 70 GiB that are not "
                   "A100s, else 2048"},
                  {"max_num_seqs",
                   "vLLM 0.19 vllm/engine/arg_utils.py EngineArgs.get_batch_defaults, "
                   "OPENAI_API_SERVER usage context: 1024 on GPUs with >= 70 GiB that are not "
                   "A100s, else 256; at most max_num_batched_tokens (_set_default_args)"},
                  {"limits_per_attention_rank",
                   "vLLM docs serving/data_parallel_deployment.md: each data-parallel rank is "
                   "its own engine core process (its own scheduler and KV cache), so "
                   "max_num_batched_tokens and max_num_seqs hold per rank"},
                  {"max_model_len",
                   "vLLM 0.19 vllm/config/model.py ModelConfig.max_model_len: derived from the "
                   "model's config.json"},
                  {"prefix_caching",
                   "vLLM 0.19 vllm/engine/arg_utils.py _set_default_args: V1 enables prefix "
                   "caching by default (generative, non-hybrid models)"},
                  {"block_size",
                   "vLLM 0.19 vllm/config/cache.py CacheConfig.block_size: set by the platform, "
                   "16 on CUDA (check)"},
                  {"gpu_memory_utilization",
                   "vLLM 0.19 vllm/config/cache.py CacheConfig.gpu_memory_utilization = 0.9"},
                  {"memory_fraction",
                   "vLLM 0.19 vllm/config/cache.py: the share of GPU memory for the model "
                   "executor (weights, activations and KV cache)"},
                  {"cuda_graph_max_batch",
                   "vLLM 0.19 vllm/config/vllm.py VllmConfig._set_cudagraph_sizes: "
                   "max_cudagraph_capture_size = min(max_num_seqs x (1 + k) x 2, 512), at most "
                   "max_num_batched_tokens"},
                  {"async_scheduling",
                   "vLLM 0.14.0 release notes: async scheduling on by default "
                   "(vllm/config/scheduler.py SchedulerConfig.async_scheduling)"},
                  {"step_overhead_async",
                   "estimate: vLLM PR #11133 measured the gap between decode steps at batch "
                   "256 falling from 5-6 ms to 150-170 us with async scheduling (CUDA graphs "
                   "on); 100 us + 0.25 us/seq = 164 us at 256"},
                  {"step_overhead_sync",
                   "estimate: vLLM issue #10634 measured 5-6 ms between decode steps at batch "
                   "256 (Llama-2-7B, V1 engine, synchronous scheduling); 0.5 ms + 19.5 us/seq "
                   "= 5.5 ms at 256"},
                  {"frontend_per_request_s",
                   "estimate (no vLLM figure found): OpenAI server, chat template and "
                   "tokenization per request; points: tokenizer encode 1.3-2.8 ms for a "
                   "131-token chat request (tenstorrent/tt-inference-server issue #2173), "
                   "client TTFT 8-12 ms above vLLM's own TTFT metric (vLLM PR #54628)"},
                  {"detokenize_per_token_s",
                   "estimate (no vLLM figure found): incremental detokenization in the API "
                   "server process (vllm/v1/engine/output_processor.py) per output token"},
                  {"state_memory_ratio",
                   "vLLM 0.19 vllm/v1/core/kv_cache_coordinator.py: a hybrid model's "
                   "recurrent-state pages and attention pages share one pool, a running "
                   "request holding one state page per linear layer; tidal reserves the "
                   "states of max_num_seqs requests (0)"},
              },
      },
      {
          .name = "sglang",
          .version = "0.5",
          .label = "SGLang 0.5",
          .policy = "prefill_first",
          .admission = "max_utilization",
          .preemption = "recompute",
          .watermark = 0.0,
          .tiers = {{.min_gpu_memory_gib = 160,
                     .except_gpu_names = {},
                     .max_num_batched_tokens = 16384,
                     .max_num_seqs = 0,
                     .cuda_graph_max_batch = 512,
                     .cuda_graph_max_batch_tp4 = 512},
                    {.min_gpu_memory_gib = 60,
                     .except_gpu_names = {},
                     .max_num_batched_tokens = 8192,
                     .max_num_seqs = 0,
                     .cuda_graph_max_batch = 256,
                     .cuda_graph_max_batch_tp4 = 512},
                    {.min_gpu_memory_gib = 35,
                     .except_gpu_names = {},
                     .max_num_batched_tokens = 4096,
                     .max_num_seqs = 0,
                     .cuda_graph_max_batch = 32,
                     .cuda_graph_max_batch_tp4 = 160},
                    {.min_gpu_memory_gib = 20,
                     .except_gpu_names = {},
                     .max_num_batched_tokens = 2048,
                     .max_num_seqs = 0,
                     .cuda_graph_max_batch = 24,
                     .cuda_graph_max_batch_tp4 = 80},
                    {.min_gpu_memory_gib = 0,
                     .except_gpu_names = {},
                     .max_num_batched_tokens = 2048,
                     .max_num_seqs = 0,
                     .cuda_graph_max_batch = 8,
                     .cuda_graph_max_batch_tp4 = 8}},
          .seqs_capped_by_batched_tokens = false,
          .seqs_from_kv = {.per_context_len = 512, .min_seqs = 2048, .max_seqs = 4096},
          .max_model_len_capped_by_batched_tokens = false,
          .limits_per_attention_rank = false,
          .prefix_caching = true,
          .block_size = 0,
          .memory_fraction = MemoryFraction::device_static,
          .gpu_memory_utilization = 0.0,
          .static_memory = {.enabled = true,
                            .base_mib = 512,
                            .per_chunk_token_mib = 1.5,
                            .min_chunk_tokens = 2048,
                            .per_graph_batch_mib = 2,
                            .per_tp_mib = 1024.0 / 8.0,
                            .large_gpu_mib = 60 * 1024,
                            .large_gpu_min_reserve_mib = 10 * 1024},
          .cuda_graph = {},
          .async_scheduling = true,
          .step_overhead_async = {.base_s = 50e-6, .per_seq_s = 0.1e-6},
          .step_overhead_sync = {.base_s = 0.3e-3, .per_seq_s = 9.4e-6},
          .frontend_per_request_s = 2e-3,
          .detokenize_per_token_s = 5e-6,
          .state_memory_ratio = 0.9,
          .sources =
              {
                  {"policy",
                   "SGLang 0.5 python/sglang/srt/server_args.py enable_mixed_chunk = False; "
                   "python/sglang/srt/managers/scheduler.py get_next_batch_to_run runs a "
                   "prefill batch whenever one can be formed, else the decode batch"},
                  {"admission",
                   "SGLang 0.5 python/sglang/srt/managers/schedule_policy.py PrefillAdder "
                   "admits while the KV pool holds the new tokens plus the running requests' "
                   "estimated remaining ones (new_token_ratio) and retracts decodes when it "
                   "runs out; tidal: max_utilization, the nearest"},
                  {"preemption",
                   "SGLang 0.5 python/sglang/srt/managers/schedule_batch.py retract_decode: "
                   "retracted requests go back to the waiting queue and are recomputed"},
                  {"watermark",
                   "SGLang 0.5: no free-block watermark (it reserves by new_token_ratio "
                   "instead); tidal: 0"},
                  {"max_num_batched_tokens",
                   "SGLang 0.5 python/sglang/srt/server_args.py "
                   "ServerArgs._handle_gpu_memory_settings: chunked_prefill_size 2048 below "
                   "35 GiB, 4096 below 60 GiB, 8192 below 160 GiB, else 16384 "
                   "(max_prefill_tokens = 16384 does not bind)"},
                  {"max_num_seqs",
                   "SGLang 0.5 python/sglang/srt/model_executor/model_runner.py: "
                   "max_running_requests = min(max(kv_tokens / context_len x 512, 2048), "
                   "4096), at most kv_tokens / 2"},
                  {"limits_per_attention_rank",
                   "SGLang 0.5 python/sglang/srt/server_args.py: with enable_dp_attention the "
                   "server's chunked_prefill_size is divided by dp_size (and a given "
                   "max_running_requests too, scheduler.py): the limits are the server's"},
                  {"max_model_len",
                   "SGLang 0.5 python/sglang/srt/server_args.py context_length: the model's "
                   "config.json"},
                  {"prefix_caching",
                   "SGLang 0.5 python/sglang/srt/server_args.py disable_radix_cache = False "
                   "(radix cache on); tidal keeps its 16-token blocks (SGLang's page_size is 1)"},
                  {"gpu_memory_utilization",
                   "SGLang 0.5 python/sglang/srt/server_args.py _handle_gpu_memory_settings: "
                   "mem_fraction_static = round((gpu_mib - reserved) / gpu_mib, 3), reserved = "
                   "512 + 1.5 x max(chunked_prefill_size, 2048) + 2 x cuda_graph_max_bs + "
                   "1024 x tp / 8 MiB, at least 10 GiB on GPUs above 60 GiB"},
                  {"memory_fraction",
                   "SGLang 0.5 python/sglang/srt/server_args.py: mem_fraction_static is "
                   "(weights + KV pool) / GPU memory; activations and CUDA graphs use the rest"},
                  {"cuda_graph_max_batch",
                   "SGLang 0.5 python/sglang/srt/server_args.py _handle_gpu_memory_settings: "
                   "cuda_graph_max_bs 8 below 20 GiB, 24 (80 at tp >= 4) below 35 GiB, 32 "
                   "(160) below 60 GiB, 256 (512) below 160 GiB, else 512"},
                  {"async_scheduling",
                   "SGLang 0.5 python/sglang/srt/server_args.py disable_overlap_schedule = "
                   "False: the overlap scheduler (SGLang 0.4) is on"},
                  {"step_overhead_async",
                   "estimate: the SGLang v0.4 blog (lmsys.org, 2024-12-04) shows no GPU idle "
                   "time between consecutive decode batches with the overlap scheduler; 50 us "
                   "+ 0.1 us/seq"},
                  {"step_overhead_sync",
                   "estimate: the SGLang v0.4 blog (lmsys.org, 2024-12-04) reports 1.1x "
                   "throughput from overlapping the scheduler, about 9% of a step exposed; "
                   "0.3 ms + 9.4 us/seq = 2.7 ms at batch 256 (9% of a 30 ms step)"},
                  {"frontend_per_request_s",
                   "estimate (no SGLang figure found): HTTP server and TokenizerManager per "
                   "request; same points as the vLLM preset"},
                  {"detokenize_per_token_s",
                   "estimate (no SGLang figure found): DetokenizerManager process per output "
                   "token"},
                  {"state_memory_ratio",
                   "SGLang 0.5 python/sglang/srt/server_args.py mamba_full_memory_ratio = 0.9; "
                   "model_runner.py: the cache memory splits state : KV = 0.9 : 1, "
                   "max_mamba_cache_size = the state share / one request's state, and the "
                   "running requests are capped by it"},
              },
      },
      {
          .name = "trtllm",
          .version = "1",
          .label = "TensorRT-LLM 1.x",
          .policy = "continuous",
          .admission = "guaranteed_no_evict",
          .preemption = "recompute",
          .watermark = 0.0,
          .tiers = {{.min_gpu_memory_gib = 0,
                     .except_gpu_names = {},
                     .max_num_batched_tokens = 8192,
                     .max_num_seqs = 2048,
                     .cuda_graph_max_batch = 128,
                     .cuda_graph_max_batch_tp4 = 0}},
          .seqs_capped_by_batched_tokens = false,
          .seqs_from_kv = {},
          .max_model_len_capped_by_batched_tokens = true,
          .limits_per_attention_rank = true,
          .prefix_caching = true,
          .block_size = 32,
          .memory_fraction = MemoryFraction::free,
          .gpu_memory_utilization = 0.9,
          .static_memory = {},
          .cuda_graph = {},
          .async_scheduling = true,
          .step_overhead_async = {.base_s = 50e-6, .per_seq_s = 0.1e-6},
          .step_overhead_sync = {.base_s = 0.3e-3, .per_seq_s = 9.4e-6},
          .frontend_per_request_s = 2e-3,
          .detokenize_per_token_s = 5e-6,
          .sources =
              {
                  {"policy",
                   "TensorRT-LLM 1.x tensorrt_llm/llmapi/llm_args.py "
                   "BaseLlmArgs.enable_chunked_prefill = False: in-flight batching of whole "
                   "prompts with decodes (tidal: continuous)"},
                  {"admission",
                   "TensorRT-LLM 1.x tensorrt_llm/llmapi/llm_args.py "
                   "SchedulerConfig.capacity_scheduler_policy = GUARANTEED_NO_EVICT"},
                  {"preemption",
                   "TensorRT-LLM 1.x: GUARANTEED_NO_EVICT never evicts (tidal: recompute, "
                   "unused)"},
                  {"watermark",
                   "TensorRT-LLM 1.x: no free-block watermark (GUARANTEED_NO_EVICT reserves "
                   "each request's whole KV); tidal: 0"},
                  {"max_num_batched_tokens",
                   "TensorRT-LLM 1.x tensorrt_llm/llmapi/llm_args.py BaseLlmArgs.max_num_tokens "
                   "= 8192"},
                  {"max_num_seqs",
                   "TensorRT-LLM 1.x tensorrt_llm/llmapi/llm_args.py BaseLlmArgs.max_batch_size "
                   "= 2048"},
                  {"limits_per_attention_rank",
                   "TensorRT-LLM 1.x PyTorch backend: with enable_attention_dp every rank's "
                   "executor schedules its own requests under max_batch_size and max_num_tokens, "
                   "each rank with its own KV cache (Dynamo docs, TensorRT-LLM \"DP Rank "
                   "Routing\"); AIConfigurator's generator sets max_batch_size per rank"},
                  {"max_model_len",
                   "TensorRT-LLM 1.x without chunked context limits prompts to max_num_tokens "
                   "(runtime log 'maxInputLen = min(maxSequenceLen - 1, maxNumTokens)', "
                   "NVIDIA/TensorRT-LLM issues #2702, #6539); tidal: min(model context, "
                   "max_num_tokens) for prompt + output"},
                  {"prefix_caching",
                   "TensorRT-LLM 1.x tensorrt_llm/llmapi/llm_args.py "
                   "KvCacheConfig.enable_block_reuse = True"},
                  {"block_size",
                   "TensorRT-LLM 1.x tensorrt_llm/llmapi/llm_args.py "
                   "KvCacheConfig.tokens_per_block = 32"},
                  {"gpu_memory_utilization",
                   "TensorRT-LLM 1.x tensorrt_llm/llmapi/llm_args.py "
                   "KvCacheConfig.free_gpu_memory_fraction = 0.9"},
                  {"memory_fraction",
                   "TensorRT-LLM 1.x tensorrt_llm/llmapi/llm_args.py "
                   "KvCacheConfig.free_gpu_memory_fraction: the share of the GPU memory left "
                   "after the model loads that the KV cache takes"},
                  {"cuda_graph_max_batch",
                   "TensorRT-LLM 1.x tensorrt_llm/llmapi/llm_args.py BaseCudaGraphConfig: "
                   "max_batch_size 128 when neither batch_sizes nor max_batch_size is given "
                   "(check)"},
                  {"async_scheduling",
                   "TensorRT-LLM 1.x docs, features/overlap-scheduler: the overlap scheduler "
                   "is enabled by default (disable_overlap_scheduler = False)"},
                  {"step_overhead_async",
                   "estimate (no TensorRT-LLM figure found): the overlap scheduler hides the "
                   "host work of a step behind the previous one; same as the SGLang preset"},
                  {"step_overhead_sync",
                   "estimate (no TensorRT-LLM figure found): same as the SGLang preset"},
                  {"frontend_per_request_s",
                   "estimate (no TensorRT-LLM figure found): trtllm-serve request handling and "
                   "tokenization; same points as the vLLM preset"},
                  {"detokenize_per_token_s",
                   "estimate (no TensorRT-LLM figure found): detokenization of each streamed "
                   "output token"},
                  {"state_memory_ratio",
                   "TensorRT-LLM 1.3 tensorrt_llm/_torch/pyexecutor/mamba_cache_manager.py: "
                   "the recurrent states of max_batch_size requests are allocated beside the "
                   "KV cache (0)"},
              },
      },
  }};
  return kPresets;
}

}  // namespace

std::span<const EnginePreset> engine_presets() {
  return presets();
}

}  // namespace tidal::perf
