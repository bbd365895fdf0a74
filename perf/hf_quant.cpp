// Checkpoint quantization formats and their scale bytes; sources in docs/models.md.
#include "perf/hf_quant.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

namespace tidal::perf {
namespace {

struct Format {
  std::string method;
  DType dtype = DType::bf16;
  double scale_bytes_per_weight = 0.0;
};

constexpr char kMethods[] = "fp8, mxfp4, fbgemm_fp8, awq, gptq, compressed-tensors, modelopt";

// fp32 scales, one per block of weight_block_size (DeepSeek-V3's 128 x 128 weight_scale_inv).
Format fp8(const HfKeys& q) {
  if (!q.has("weight_block_size")) return {"fp8", DType::fp8, 0.0};  // per-tensor scales
  const std::vector<int64_t> block = q.counts("weight_block_size", 1);
  if (block.size() != 2) q.fail("weight_block_size", "expected two numbers");
  return {"fp8", DType::fp8, 4.0 / static_cast<double>(block[0] * block[1])};
}

// Group scales (fp16, 2 bytes) plus zero points packed at the weight's width.
double group_scale_bytes(int64_t group_size, double zero_bytes) {
  return group_size > 0 ? (2.0 + zero_bytes) / static_cast<double>(group_size) : 0.0;
}

Format awq(const HfKeys& q) {
  const int64_t bits = q.count("bits");
  if (bits != 4) q.fail("bits", fmt::format("{}: only 4-bit AWQ is supported", bits));
  const double zero = q.flag_or("zero_point", true) ? 0.5 : 0.0;
  return {"awq", DType::int4, group_scale_bytes(q.count("group_size"), zero)};
}

Format gptq(const HfKeys& q) {
  const int64_t bits = q.count("bits");
  if (bits != 4 && bits != 8) q.fail("bits", fmt::format("{}: GPTQ with 4 or 8 bits only", bits));
  const int64_t group = q.count("group_size", -1);  // -1: one scale per output channel
  return {"gptq", bits == 4 ? DType::int4 : DType::int8,
          group_scale_bytes(group, static_cast<double>(bits) / 8.0)};
}

// One compressed-tensors config group's weight format.
Format compressed_group(const HfKeys& group) {
  const std::vector<std::string> targets = group.strings("targets", false);
  if (!targets.empty() && std::find(targets.begin(), targets.end(), "Linear") == targets.end()) {
    group.fail("targets", "only groups targeting \"Linear\" (every linear layer) are supported");
  }
  const HfKeys w = group.child("weights");
  const int64_t bits = w.count("num_bits");
  const std::string type = w.text("type");
  const std::string strategy = w.optional_text("strategy").value_or("tensor");
  const int64_t group_size = w.count_or("group_size", 0, 0);
  if (type == "float" && bits == 8) {
    if (strategy != "block") return {"fp8", DType::fp8, 0.0};
    const std::vector<int64_t> block = w.counts("block_structure", 1);
    if (block.size() != 2) w.fail("block_structure", "expected two numbers");
    return {"fp8", DType::fp8, 4.0 / static_cast<double>(block[0] * block[1])};
  }
  if (type == "float" && bits == 4 && group_size == 16) return {"nvfp4", DType::fp4, 1.0 / 16};
  if (type == "float" && bits == 4 && group_size == 32) return {"mxfp4", DType::fp4, 1.0 / 32};
  if (type == "int" && (bits == 4 || bits == 8)) {
    const double zero = w.flag_or("symmetric", true) ? 0.0 : static_cast<double>(bits) / 8.0;
    return {bits == 4 ? "int4" : "int8", bits == 4 ? DType::int4 : DType::int8,
            strategy == "group" ? group_scale_bytes(group_size, zero) : 0.0};
  }
  w.fail("num_bits", fmt::format("{}-bit {} weights (group_size {}) are not supported", bits, type,
                                 group_size));
}

Format compressed_tensors(const HfKeys& q) {
  const HfKeys groups = q.child("config_groups");
  std::optional<Format> format;
  for (const auto& item : groups.json().items()) {
    const Format f = compressed_group(groups.child(item.key()));
    if (format &&
        (f.dtype != format->dtype || f.scale_bytes_per_weight != format->scale_bytes_per_weight)) {
      q.fail("config_groups", "groups with different weight formats: ModelSpec holds one");
    }
    format = f;
  }
  if (!format) q.fail("config_groups", "no group");
  return *format;
}

// A ModelOpt quant_algo (config.json's quantization_config or hf_quant_config.json).
Format modelopt(const HfKeys& q) {
  const std::string algo = q.text("quant_algo");
  if (algo == "FP8") return {"fp8", DType::fp8, 0.0};  // per-tensor scales
  if (algo == "NVFP4") {
    return {"nvfp4", DType::fp4, 1.0 / static_cast<double>(q.count_or("group_size", 16))};
  }
  if (algo == "W4A16_AWQ" || algo == "W4A8_AWQ") {
    return {"awq", DType::int4, group_scale_bytes(q.count_or("group_size", 128), 0.0)};
  }
  if (algo == "MIXED_PRECISION") {
    q.fail("quant_algo",
           "MIXED_PRECISION (a format per layer, in quantized_layers) is not "
           "supported: ModelSpec holds one quantized format");
  }
  q.fail("quant_algo",
         fmt::format("unsupported ModelOpt algorithm \"{}\" (tidal understands FP8, NVFP4, "
                     "W4A16_AWQ, W4A8_AWQ)",
                     algo));
}

void note_kv_scales(const HfKeys& q, const char* key, std::vector<std::string>& notes) {
  if (!q.has(key)) return;
  const nlohmann::json& kv = *q.find(key);
  notes.push_back(
      fmt::format("the checkpoint carries KV-cache quantization ({} {}); the KV "
                  "dtype is the deployment's choice",
                  key, kv.is_string() ? kv.get<std::string>() : kv.dump()));
}

// Marks the parts `patterns` keep unquantized. A part some layers keep and others do not counts
// as quantized for dense MLPs and experts (noted), and as unquantized for attention.
void apply_patterns(const std::vector<std::string>& patterns, const QuantLayout& layout,
                    QuantReading& out) {
  CheckpointQuant& q = out.quant;
  q.not_converted = patterns;
  const auto n = static_cast<std::size_t>(layout.num_layers);
  auto is_moe = [&](std::size_t i) { return !layout.moe_layer.empty() && layout.moe_layer[i]; };
  std::vector<bool> layer_whole(n), dense_kept(n), experts_kept(n), block_kept(n);
  std::vector<std::string> unknown;
  auto mark = [&](std::vector<bool>& kept, int64_t layer) {
    if (layer < 0) {
      kept.assign(n, true);
    } else {
      kept[static_cast<std::size_t>(layer)] = true;
    }
  };
  for (const std::string& pattern : patterns) {
    const ModuleTarget t = classify_module_pattern(pattern, layout.num_layers);
    switch (t.part) {
      case ModulePart::none:
        break;
      case ModulePart::attention:
        q.attention = false;
        break;
      case ModulePart::shared_experts:
        q.shared_experts = false;
        break;
      case ModulePart::experts:
        mark(experts_kept, t.layer);
        break;
      case ModulePart::dense_mlp:
        mark(dense_kept, t.layer);
        break;
      case ModulePart::mlp_block:
        mark(block_kept, t.layer);
        break;
      case ModulePart::whole_layer:
        mark(layer_whole, t.layer);
        break;
      case ModulePart::unknown:
        unknown.push_back(pattern);
        break;
    }
  }
  std::size_t dense = 0, dense_unq = 0, moe = 0, experts_unq = 0, blocks_unq = 0, whole = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool layer_or_block = layer_whole[i] || block_kept[i];
    whole += layer_whole[i] ? 1 : 0;
    if (is_moe(i)) {
      ++moe;
      experts_unq += (layer_or_block || experts_kept[i]) ? 1 : 0;
      blocks_unq += layer_or_block ? 1 : 0;
    } else {
      ++dense;
      dense_unq += (layer_or_block || dense_kept[i]) ? 1 : 0;
    }
  }
  if (n > 0 && whole == n) q.attention = false;
  if (dense > 0 && dense_unq == dense) q.dense_mlp = false;
  if (moe > 0 && experts_unq == moe) q.experts = false;
  if (moe > 0 && blocks_unq == moe) q.shared_experts = false;
  auto partial = [&](std::size_t kept, std::size_t of, const char* what) {
    if (kept > 0 && kept < of) {
      out.notes.push_back(
          fmt::format("quantization: {} of {} layers keep their {} unquantized; "
                      "counted as quantized",
                      kept, of, what));
    }
  };
  partial(dense_unq, dense, "dense MLP");
  partial(experts_unq, moe, "experts");
  if (whole > 0 && whole < n && q.attention) {
    q.attention = false;
    out.notes.push_back(fmt::format(
        "quantization: {} of {} layers are kept whole; all attention counted as unquantized", whole,
        n));
  }
  if (!unknown.empty()) {
    std::string list;
    for (const std::string& p : unknown) list += (list.empty() ? "" : ", ") + p;
    out.notes.push_back("quantization: unrecognised exclusion patterns ignored: " + list);
  }
}

void set_format(QuantReading& out, const Format& f) {
  out.quant.method = f.method;
  out.quant.dtype = f.dtype;
  out.quant.scale_bytes_per_weight = f.scale_bytes_per_weight;
}

QuantReading from_quantization_config(const HfKeys& q, const QuantLayout& layout) {
  QuantReading out;
  std::optional<std::string> method = q.optional_text("quant_method");
  if (!method && q.has("quant_algo")) method = "modelopt";  // ModelOpt writes no quant_method
  if (!method) q.fail("quant_method", fmt::format("absent (tidal understands {})", kMethods));
  const char* list_key = "modules_to_not_convert";
  if (*method == "fp8") {
    set_format(out, fp8(q));
  } else if (*method == "mxfp4") {
    set_format(out, {"mxfp4", DType::fp4, 1.0 / 32});  // one E8M0 scale byte per 32 values
  } else if (*method == "fbgemm_fp8") {
    set_format(out, {"fp8", DType::fp8, 0.0});  // per-row scales
  } else if (*method == "awq") {
    set_format(out, awq(q));
  } else if (*method == "gptq") {
    set_format(out, gptq(q));
  } else if (*method == "compressed-tensors") {
    set_format(out, compressed_tensors(q));
    list_key = "ignore";
    note_kv_scales(q, "kv_cache_scheme", out.notes);
  } else if (*method == "modelopt") {
    set_format(out, modelopt(q));
    list_key = "ignore";
    note_kv_scales(q, "kv_cache_scheme", out.notes);
  } else {
    q.fail("quant_method", fmt::format("unsupported quantization method \"{}\" (tidal "
                                       "understands {})",
                                       *method, kMethods));
  }
  apply_patterns(q.strings(list_key, false), layout, out);
  return out;
}

QuantReading from_hf_quant_config(const nlohmann::json& file, const std::string& where,
                                  const QuantLayout& layout) {
  const HfKeys q = HfKeys(file, where).child("quantization");
  QuantReading out;
  set_format(out, modelopt(q));
  note_kv_scales(q, "kv_cache_quant_algo", out.notes);
  apply_patterns(q.strings("exclude_modules", false), layout, out);
  return out;
}

}  // namespace

QuantReading read_checkpoint_quant(const HfKeys* quantization_config,
                                   const nlohmann::json* hf_quant_config,
                                   const std::string& hf_quant_where, const QuantLayout& layout) {
  if (quantization_config != nullptr) return from_quantization_config(*quantization_config, layout);
  if (hf_quant_config != nullptr)
    return from_hf_quant_config(*hf_quant_config, hf_quant_where, layout);
  return {};
}

}  // namespace tidal::perf
