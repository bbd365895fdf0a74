// IEEE binary16 storage helpers (safetensors F16): exact decode, round-to-nearest-even encode
// with overflow to infinity, subnormals kept, NaN stays NaN.
#pragma once

#include <cstdint>

namespace tidal::kernels {

float fp16_to_float(uint16_t value);
uint16_t float_to_fp16(float value);

}  // namespace tidal::kernels
