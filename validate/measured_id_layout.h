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

// In about 330 aggregated rows of measured.csv the parallelism columns are a layout of N GPUs with
// experts over E multiplied by E: the attention side (tp_size x attention_dp_size) and the MoE side
// (moe_tp_size x moe_ep_size) both count N x E GPUs, with moe_tp_size = E. An id "tp<N>_..._ep<E>"
// names N and E (e.g. "..._tp8_ep8_...": tp_size 64, moe 8 x 8). An id naming no GPU count names
// neither; then only the square case is recognised, N = E = moe_tp_size = moe_ep_size (tp_size 64,
// moe 8 x 8 on one 8-GPU node), the layout of every such row whose measured latencies recur under
// an id that names its layout. Where one of those holds and exactly one attention factor is above
// 1, divides it by E and sets moe_tp_size to 1, so the row runs on N GPUs with experts over E, and
// returns true. Any other row is left as it is (false).
bool undo_multiplied_layout(MeasuredRun& run);

}  // namespace tidal::validate
