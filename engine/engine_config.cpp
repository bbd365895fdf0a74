#include "engine/engine_config.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "base/input_error.h"
#include "engine/cuda_ranks.h"
#include "models/tensor_parallel.h"

namespace tidal::engine {

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (;;) {
    const size_t end = text.find(separator, begin);
    parts.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return parts;
    begin = end + 1;
  }
}

// A positive integer, or nothing when `text` is not one.
bool parse_positive(const std::string& text, int32_t& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end && value > 0;
}

}  // namespace

SpecConfig parse_spec_config(const std::string& text, const std::string& what) {
  const std::string usage = " (expected none, ngram:K or draft:LAYERS:K / draft:MODEL:K)";
  if (text == "none") return {};
  const std::vector<std::string> parts = split(text, ':');
  SpecConfig spec;
  if (parts[0] == "ngram" && parts.size() == 2) {
    spec.method = SpecMethod::ngram;
  } else if (parts[0] == "draft" && parts.size() >= 3) {
    spec.method = SpecMethod::draft;
    // A model path may itself hold ':'; K is after the last one.
    std::string middle = text.substr(6, text.size() - 6 - parts.back().size() - 1);
    if (!parse_positive(middle, spec.num_draft_layers)) {
      if (middle.empty()) throw InputError(what + ": '" + text + "': empty draft model" + usage);
      spec.num_draft_layers = 0;
      spec.draft_model = middle;
    }
  } else {
    throw InputError(what + ": unknown speculative decoding '" + text + "'" + usage);
  }
  if (!parse_positive(parts.back(), spec.num_spec_tokens)) {
    throw InputError(what + ": '" + text +
                     "': K (draft tokens per step) must be a positive integer" + usage);
  }
  return spec;
}

std::string spec_config_name(const SpecConfig& spec) {
  const std::string k = std::to_string(spec.num_spec_tokens);
  switch (spec.method) {
    case SpecMethod::none:
      return "none";
    case SpecMethod::ngram:
      return "ngram:" + k;
    case SpecMethod::draft:
      return "draft:" +
             (spec.draft_model.empty() ? std::to_string(spec.num_draft_layers) : spec.draft_model) +
             ":" + k;
  }
  return "none";
}

kernels::KvDType parse_kv_dtype(const std::string& text, const std::string& what) {
  if (text == "f32") return kernels::KvDType::f32;
  if (text == "bf16") return kernels::KvDType::bf16;
  if (text == "int8") return kernels::KvDType::int8;
  throw InputError(what + ": unknown KV cache dtype '" + text + "' (expected f32, bf16 or int8)");
}

BackendKind parse_backend_kind(const std::string& text, const std::string& what) {
  if (text == "cpu") return BackendKind::cpu;
  if (text == "cuda") return BackendKind::cuda;
  throw InputError(what + ": unknown backend '" + text + "' (expected cpu or cuda)");
}

const char* backend_kind_name(BackendKind kind) {
  return kind == BackendKind::cuda ? "cuda" : "cpu";
}

bool parse_cuda_graphs(const std::string& text, BackendKind backend) {
  if (text.empty()) return true;
  if (backend != BackendKind::cuda) {
    throw InputError(
        "--cuda-graphs: applies to --backend cuda only (the cpu backend has no "
        "graphs); drop it or use --backend cuda");
  }
  if (text == "on") return true;
  if (text == "off") return false;
  throw InputError("--cuda-graphs: unknown value '" + text + "' (expected on or off)");
}

void validate(const EngineConfig& config, const models::ModelConfig& model) {
  models::check_tensor_parallel(model, config.tp, "--tp");
  if (!(config.gpu_memory_utilization > 0.0) || config.gpu_memory_utilization > 1.0) {
    throw InputError("--gpu-memory-utilization: must be in (0, 1] (got " +
                     std::to_string(config.gpu_memory_utilization) + ")");
  }
  if (config.backend == BackendKind::cuda) {
    check_cuda_ranks(config.tp, config.num_cpu_blocks);
    if (config.spec.method == SpecMethod::draft) {
      throw InputError(
          "--spec: draft-model speculation runs on the CPU backend only (the draft model has no "
          "CUDA path); use --spec ngram:K with --backend cuda");
    }
  }
  if (config.num_threads < 1 || config.num_threads > kMaxThreadsPerRank) {
    throw InputError("--threads: must be between 1 and " + std::to_string(kMaxThreadsPerRank) +
                     " (got " + std::to_string(config.num_threads) + ")");
  }
  if (config.block_size < 1 || config.block_size > kMaxBlockSize) {
    throw InputError("--block-size: must be between 1 and " + std::to_string(kMaxBlockSize) +
                     " tokens (got " + std::to_string(config.block_size) + ")");
  }
  if (config.num_gpu_blocks < 0) {
    throw InputError("--kv-blocks: must not be negative (got " +
                     std::to_string(config.num_gpu_blocks) + ")");
  }
  if (config.num_gpu_blocks == 0 && config.kv_cache_bytes <= 0) {
    throw InputError("--kv-memory: must be positive");
  }
  if (config.num_cpu_blocks < 0) {
    throw InputError("--swap-blocks: must not be negative (got " +
                     std::to_string(config.num_cpu_blocks) + ")");
  }
  const SpecConfig& spec = config.spec;
  if (spec.method == SpecMethod::draft && spec.draft_model.empty() &&
      spec.num_draft_layers > model.num_layers) {
    throw InputError("--spec: draft:" + std::to_string(spec.num_draft_layers) +
                     ": the target has only " + std::to_string(model.num_layers) + " layers");
  }
  if (spec.method == SpecMethod::ngram && (spec.ngram_min < 1 || spec.ngram_max < spec.ngram_min)) {
    throw InputError("--spec: n-gram sizes need 1 <= min <= max");
  }
  if (!(config.sampling.temperature >= 0.0f) || config.sampling.top_k < 0 ||
      !(config.sampling.top_p > 0.0f) || config.sampling.top_p > 1.0f) {
    throw InputError(
        "--temperature/--top-k/--top-p: need temperature >= 0, top-k >= 0, "
        "0 < top-p <= 1");
  }
}

sched::SchedulerConfig effective_scheduler_config(const EngineConfig& config,
                                                  const models::ModelConfig& model) {
  sched::SchedulerConfig s = config.scheduler;
  s.max_model_len = std::min(s.max_model_len, model.max_position_embeddings);
  // Only static batching reads the batch size; elsewhere it must merely not exceed the limit.
  if (s.policy != "static") s.static_batch_size = std::min(s.static_batch_size, s.max_num_seqs);
  s.num_speculative_tokens =
      config.spec.method == SpecMethod::none ? 0 : config.spec.num_spec_tokens;
  return s;
}

}  // namespace tidal::engine
