#include "validate/measured_id_layout.h"

#include <charconv>

#include "validate/measured_runs.h"

namespace tidal::validate {
namespace {

// The number after `key` that ends the id or a "_" part, e.g. key "_tp" in "_c4_tp8_ep8_920" -> 8.
std::optional<int64_t> tagged_number(std::string_view id, std::string_view key) {
  for (size_t at = id.find(key); at != std::string_view::npos; at = id.find(key, at + 1)) {
    const char* first = id.data() + at + key.size();
    const char* last = id.data() + id.size();
    int64_t value = 0;
    const auto [end, error] = std::from_chars(first, last, value);
    if (error == std::errc() && end != first && (end == last || *end == '_') && value > 0) {
      return value;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<IdLayout> id_layout(std::string_view id) {
  const std::optional<int64_t> num_gpus = tagged_number(id, "_tp");
  const std::optional<int64_t> ep = tagged_number(id, "_ep");
  if (!num_gpus || !ep) return std::nullopt;
  return IdLayout{*num_gpus, *ep};
}

bool undo_multiplied_layout(MeasuredRun& run) {
  if (run.mode != "agg") return false;
  const std::optional<IdLayout> named = id_layout(run.id);
  if (!named && tagged_number(run.id, "_tp")) return false;  // the id names N alone ("tp4_epnone")
  const int64_t e = named ? named->ep : run.moe_ep;
  const int64_t num_gpus = named ? named->num_gpus : e;
  if (e <= 1 || run.moe_tp != e || run.moe_ep * run.moe_tp != num_gpus * e ||
      run.tp * run.attention_dp != num_gpus * e) {
    return false;
  }
  if ((run.tp > 1) == (run.attention_dp > 1)) return false;  // which side to divide is unclear
  int64_t& attention = run.tp > 1 ? run.tp : run.attention_dp;
  if (attention % e != 0) return false;
  attention /= e;
  run.moe_tp = 1;
  return true;
}

}  // namespace tidal::validate
