#include "kernels/cpu/kv_write.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/numeric/bf16.h"
#include "kernels/numeric/round_half_even.h"

namespace tidal::kernels {

namespace {

// Stores one head row of head_dim values at element index `index` of the arena.
void store_row(const KvCacheView& kv, int64_t index, const float* values) {
  const int64_t head_dim = kv.spec.head_dim;
  switch (kv.spec.dtype) {
    case KvDType::f32:
      std::memcpy(static_cast<float*>(kv.data) + index, values, head_dim * sizeof(float));
      return;
    case KvDType::bf16: {
      uint16_t* out = static_cast<uint16_t*>(kv.data) + index;
      for (int64_t i = 0; i < head_dim; ++i) out[i] = float_to_bf16(values[i]);
      return;
    }
    case KvDType::int8: {
      float absmax = 0.0f;
      for (int64_t i = 0; i < head_dim; ++i) absmax = std::max(absmax, std::fabs(values[i]));
      const float scale = absmax / 127.0f;
      int8_t* out = static_cast<int8_t*>(kv.data) + index;
      for (int64_t i = 0; i < head_dim; ++i) {
        const double code = scale == 0.0f ? 0.0 : round_half_even(values[i] / scale);
        out[i] = static_cast<int8_t>(std::clamp(code, -127.0, 127.0));
      }
      kv.scales[index / head_dim] = scale;
      return;
    }
  }
}

void write_token(const KvCacheView& kv, int64_t layer, const float* k, const float* v, int64_t slot,
                 int64_t token) {
  const int64_t num_kv_heads = kv.spec.num_kv_heads;
  const int64_t head_dim = kv.spec.head_dim;
  for (int64_t h = 0; h < num_kv_heads; ++h) {
    const int64_t offset = (token * num_kv_heads + h) * head_dim;
    store_row(kv, kv.row_index(layer, 0, slot, h), k + offset);
    store_row(kv, kv.row_index(layer, 1, slot, h), v + offset);
  }
}

}  // namespace

namespace reference {

void write_kv(const KvCacheView& kv, int64_t layer, const float* k, const float* v,
              const int64_t* slot_mapping, int64_t num_tokens) {
  for (int64_t t = 0; t < num_tokens; ++t) {
    if (slot_mapping[t] >= 0) write_token(kv, layer, k, v, slot_mapping[t], t);
  }
}

void read_kv_row(const KvCacheView& kv, int64_t layer, int64_t kv_index, int64_t slot, int64_t head,
                 float* out) {
  const int64_t index = kv.row_index(layer, kv_index, slot, head);
  for (int64_t i = 0; i < kv.spec.head_dim; ++i) {
    switch (kv.spec.dtype) {
      case KvDType::f32:
        out[i] = static_cast<const float*>(kv.data)[index + i];
        break;
      case KvDType::bf16:
        out[i] = bf16_to_float(static_cast<const uint16_t*>(kv.data)[index + i]);
        break;
      case KvDType::int8:
        out[i] = static_cast<float>(static_cast<const int8_t*>(kv.data)[index + i]) *
                 kv.scales[index / kv.spec.head_dim];
        break;
    }
  }
}

}  // namespace reference

namespace cpu {

void write_kv(ThreadPool& pool, const KvCacheView& kv, int64_t layer, const float* k,
              const float* v, const int64_t* slot_mapping, int64_t num_tokens) {
  pool.parallel_for(num_tokens, 8, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      if (slot_mapping[t] >= 0) write_token(kv, layer, k, v, slot_mapping[t], t);
    }
  });
}

}  // namespace cpu

}  // namespace tidal::kernels
