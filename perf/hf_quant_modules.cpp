// Module patterns of a checkpoint's unquantized list, by name: Hugging Face's
// modules_to_not_convert (substrings or globs), compressed-tensors' ignore ("re:" regexes) and
// ModelOpt's exclude_modules (globs). The patterns are classified by what they name, not matched
// against a module tree tidal does not have.
#include <algorithm>
#include <cctype>
#include <regex>

#include "perf/hf_quant.h"

namespace tidal::perf {
namespace {

bool contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

// The last dotted segment without glob or regex decoration ("model.layers.3.mlp.gate*" -> "gate").
std::string last_segment(std::string text) {
  while (!text.empty() && (text.back() == '*' || text.back() == '.' || text.back() == '$')) {
    text.pop_back();
  }
  const std::size_t dot = text.rfind('.');
  return dot == std::string::npos ? text : text.substr(dot + 1);
}

bool names_no_counted_weight(const std::string& s) {
  for (const char* part : {"vision", "visual", "mm_projector", "multi_modal", "patch_merge",
                           "audio", "norm", "lm_head", "embed", "shared_head", "eh_proj", "router",
                           "e_score_correction_bias", "shared_expert_gate", "indexer"}) {
    if (contains(s, part)) return true;
  }
  const std::string last = last_segment(s);
  return last == "gate" || last == "head";  // MoE routers, the LM head
}

}  // namespace

ModuleTarget classify_module_pattern(const std::string& pattern, int64_t num_layers) {
  std::string s;
  for (char c : pattern.rfind("re:", 0) == 0 ? pattern.substr(3) : pattern) {
    if (c != '\\') s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  ModuleTarget target;
  static const std::regex layer_index(R"(layers\.(\d+))");
  std::smatch match;
  if (std::regex_search(s, match, layer_index)) target.layer = std::stoll(match[1].str());
  if (s.rfind("mtp", 0) == 0 || contains(s, ".mtp") || target.layer >= num_layers ||
      names_no_counted_weight(s)) {
    target.part = ModulePart::none;
  } else if (contains(s, "attn")) {
    target.part = ModulePart::attention;
  } else if (contains(s, "shared_expert")) {
    target.part = ModulePart::shared_experts;
  } else if (contains(s, "expert")) {
    target.part = ModulePart::experts;
  } else if (contains(s, "mlp") || contains(s, "ffn") || contains(s, "feed_forward") ||
             contains(s, "moe")) {
    const bool projection = contains(s, "_proj") || contains(s, "fc1") || contains(s, "fc2") ||
                            contains(s, ".w1") || contains(s, ".w2") || contains(s, ".w3");
    target.part = projection ? ModulePart::dense_mlp : ModulePart::mlp_block;
  } else if (target.layer >= 0 && std::regex_match(s, std::regex(R"(.*layers\.\d+(\.?\*|\.)?)"))) {
    target.part = ModulePart::whole_layer;
  } else {
    target.part = ModulePart::unknown;
  }
  return target;
}

}  // namespace tidal::perf
