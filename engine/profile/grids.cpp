#include "engine/profile/grids.h"

#include <algorithm>

namespace tidal::profile {

using perf::OpClass;

std::vector<int64_t> token_grid(int64_t limit) {
  std::vector<int64_t> grid;
  for (int64_t p = 1; p <= limit; p *= 2) {
    grid.push_back(p);
    if (p >= 2 && p + p / 2 <= limit) grid.push_back(p + p / 2);
  }
  std::sort(grid.begin(), grid.end());
  return grid;
}

std::vector<int64_t> powers_of_two(int64_t limit) {
  std::vector<int64_t> grid;
  for (int64_t p = 1; p <= limit; p *= 2) grid.push_back(p);
  return grid;
}

std::vector<int64_t> context_grid(int64_t first, int64_t limit) {
  std::vector<int64_t> grid;
  for (int64_t c = first; c <= limit; c *= 4) grid.push_back(c);
  return grid;
}

std::vector<OpClass> token_classes(const models::ModelConfig& config) {
  std::vector<OpClass> classes{OpClass::embedding, OpClass::norm,   OpClass::qkv_proj,
                               OpClass::rope,      OpClass::o_proj, OpClass::residual_add};
  if (config.is_moe()) {
    classes.insert(classes.end(), {OpClass::moe_router, OpClass::moe_experts});
  } else {
    classes.insert(classes.end(), {OpClass::mlp_up_gate, OpClass::mlp_act, OpClass::mlp_down});
  }
  return classes;
}

}  // namespace tidal::profile
