// The layout a measured.csv row id names ("..._c4_tp8_ep8_920": 8 GPUs, experts over 8) and the
// rows whose parallelism columns hold that layout multiplied by its expert parallelism.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tidal::validate {

struct MeasuredRun;

// The GPUs ("tp<N>") and expert parallelism ("ep<E>") an id names, or nullopt when it names
// neither. AIConfigurator's ids write a replica's GPU count as tp whatever splits it (the rows
// with attention data parallelism have tp_size 1 and an id "tp8").
struct IdLayout {
  int64_t num_gpus = 0;
  int64_t ep = 0;
};
std::optional<IdLayout> id_layout(std::string_view id);

// In about 190 aggregated rows of measured.csv (e.g. id "..._tp8_ep8_...": tp_size 64, moe_tp 8,
// moe_ep 8 on one 8-GPU node) both the attention side (tp_size x attention_dp_size) and the MoE
// side (moe_tp_size x moe_ep_size) count N x E GPUs where the id names N, with moe_tp_size = E:
// the columns were multiplied by E. Where that holds and exactly one attention factor is above 1,
// divides it and moe_tp_size by E, so the row runs on the id's N GPUs with experts over E, and
// returns true. Any other row is left as it is (false).
bool undo_multiplied_layout(MeasuredRun& run);

}  // namespace tidal::validate
