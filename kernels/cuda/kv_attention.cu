// KV write by slot mapping and paged attention (decode and prefill over a cached prefix).
// Specs: reference::write_kv and reference::paged_attention in kernels/cpu/.
//
// Paged attention: grid (query token, kv head, split); a block serves the query heads of its
// kv head (up to kMaxGroup of them; more take several blocks). Each block walks its split's key
// positions in chunks of kChunk with an online softmax (running max m, running sum l, running
// weighted values acc). With one split it writes acc / l directly; otherwise it writes (m, l, acc)
// partials and a reduce kernel combines the splits. Padding rows (slot -1) produce zeros.
#include <cuda_bf16.h>

#include <algorithm>
#include <stdexcept>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/kv_args.cuh"
#include "kernels/cuda/launchers.h"

namespace tidal::kernels::cuda {

namespace {

constexpr int kAttentionThreads = 128;
constexpr int kAttentionWarps = kAttentionThreads / 32;
constexpr int kChunk = 128;
// Query heads one attention block serves (of those sharing a kv head).
constexpr int kMaxGroup = 8;
constexpr int kDimsPerThread = kAttentionMaxHeadDim / kAttentionThreads;  // 2
constexpr int kWriteThreads = 128;

// Block per (token, kv head, k or v): converts one head row, int8 with a per-row absmax scale.
__global__ void write_kv_kernel(KvArgs kv, int64_t layer, const float* k, const float* v,
                                const int64_t* slot_mapping) {
  __shared__ float scratch[32];
  const int64_t t = blockIdx.x;
  const int64_t h = blockIdx.y;
  const int64_t which = blockIdx.z;  // 0 = k, 1 = v
  const int64_t slot = slot_mapping[t];
  if (slot < 0) return;
  const float* src = (which == 0 ? k : v) + (t * kv.num_kv_heads + h) * kv.head_dim;
  const int64_t index = kv.row_index(layer, which, slot, h);
  switch (kv.dtype) {
    case KvDType::f32:
    case KvDType::bf16:
      for (int64_t i = threadIdx.x; i < kv.head_dim; i += blockDim.x)
        kv.store(index, i, src[i], 0.0f);
      return;
    case KvDType::int8: {
      float absmax = 0.0f;
      for (int64_t i = threadIdx.x; i < kv.head_dim; i += blockDim.x) {
        absmax = fmaxf(absmax, fabsf(src[i]));
      }
      const float scale = block_max(absmax, scratch) / 127.0f;
      for (int64_t i = threadIdx.x; i < kv.head_dim; i += blockDim.x)
        kv.store(index, i, src[i], scale);
      if (threadIdx.x == 0) kv.scales[index / kv.head_dim] = scale;
      return;
    }
  }
}

struct BatchArgs {
  int64_t num_seqs;
  const int32_t* query_start_loc;
  const int32_t* positions;
  const int64_t* slot_mapping;
  const int32_t* block_tables;
  int64_t max_blocks_per_seq;
  int64_t num_heads;
  int64_t num_kv_heads;
  int64_t head_dim;
};

// The sequence whose query rows hold token t: the last s with query_start_loc[s] <= t.
__device__ int64_t sequence_of(const BatchArgs& batch, int64_t t) {
  int64_t lo = 0;
  int64_t hi = batch.num_seqs - 1;
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (batch.query_start_loc[mid] <= t) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// Grid (token, kv head x head chunk, split): one block serves up to kMaxGroup query heads that
// share a kv head (GQA), so each K/V row it reads is used by all of them.
__global__ void __launch_bounds__(kAttentionThreads)
    paged_attention_kernel(const float* q, KvArgs kv, int64_t layer, BatchArgs batch, float scale,
                           int64_t partition_size, float* partials, float* out) {
  __shared__ float q_shared[kMaxGroup][kAttentionMaxHeadDim];  // [group, head_dim], * scale
  __shared__ float scores[kMaxGroup][kChunk];  // [group, kChunk] scores, then exp weights
  __shared__ float scratch[32];
  const int64_t t = blockIdx.x;
  const int64_t split = blockIdx.z;
  const int64_t num_splits = gridDim.z;
  const int64_t d = batch.head_dim;
  const int64_t group = batch.num_heads / batch.num_kv_heads;
  const int64_t head_chunks = (group + kMaxGroup - 1) / kMaxGroup;
  const int64_t kv_head = blockIdx.y / head_chunks;
  const int64_t first_in_group = (blockIdx.y % head_chunks) * kMaxGroup;
  const int num_group_heads = static_cast<int>(min_i64(kMaxGroup, group - first_in_group));
  const int64_t first_head = kv_head * group + first_in_group;  // heads h with h / group == kv_head
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;

  const bool padding = batch.slot_mapping[t] < 0;
  const int64_t num_keys = padding ? 0 : static_cast<int64_t>(batch.positions[t]) + 1;
  const int64_t begin = split * partition_size;
  const int64_t end = min_i64(num_keys, begin + partition_size);
  const int64_t s = sequence_of(batch, t);
  const int32_t* block_table = batch.block_tables + s * batch.max_blocks_per_seq;

  for (int g = 0; g < num_group_heads; ++g) {
    for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
      q_shared[g][i] = q[(t * batch.num_heads + first_head + g) * d + i] * scale;
    }
  }
  float running_max[kMaxGroup];
  float running_sum[kMaxGroup];
  float acc[kMaxGroup][kDimsPerThread];
#pragma unroll
  for (int g = 0; g < kMaxGroup; ++g) {
    running_max[g] = -FLT_MAX;
    running_sum[g] = 0.0f;
#pragma unroll
    for (int k = 0; k < kDimsPerThread; ++k) acc[g][k] = 0.0f;
  }
  for (int64_t chunk_begin = begin; chunk_begin < end; chunk_begin += kChunk) {
    const int64_t n = min_i64(kChunk, end - chunk_begin);
    __syncthreads();  // q_shared written / previous chunk's scores consumed
    for (int64_t j = warp; j < n; j += kAttentionWarps) {
      const int64_t p = chunk_begin + j;
      const int64_t slot =
          static_cast<int64_t>(block_table[p / kv.block_size]) * kv.block_size + p % kv.block_size;
      const int64_t row = kv.row_index(layer, 0, slot, kv_head);
      float dot[kMaxGroup] = {};
      for (int64_t i = lane; i < d; i += 32) {
        const float key = kv.load(row, i);
#pragma unroll
        for (int g = 0; g < kMaxGroup; ++g) {
          if (g < num_group_heads) dot[g] += q_shared[g][i] * key;
        }
      }
#pragma unroll
      for (int g = 0; g < kMaxGroup; ++g) {
        if (g < num_group_heads) {
          const float total = warp_sum(dot[g]);
          if (lane == 0) scores[g][j] = total;
        }
      }
    }
    __syncthreads();
    float correction[kMaxGroup];
#pragma unroll
    for (int g = 0; g < kMaxGroup; ++g) {
      correction[g] = 1.0f;
      if (g >= num_group_heads) continue;  // uniform across the block
      float chunk_max = -FLT_MAX;
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
        chunk_max = fmaxf(chunk_max, scores[g][j]);
      }
      chunk_max = block_max(chunk_max, scratch);
      const float new_max = fmaxf(running_max[g], chunk_max);
      correction[g] = expf(running_max[g] - new_max);  // 0 on the first chunk
      float chunk_sum = 0.0f;
      for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
        scores[g][j] = expf(scores[g][j] - new_max);
        chunk_sum += scores[g][j];
      }
      chunk_sum = block_sum(chunk_sum, scratch);  // its barriers also publish scores[g]
      running_sum[g] = running_sum[g] * correction[g] + chunk_sum;
      running_max[g] = new_max;
    }
#pragma unroll
    for (int k = 0; k < kDimsPerThread; ++k) {
      const int64_t i = threadIdx.x + k * kAttentionThreads;
      if (i >= d) break;
      float value_sum[kMaxGroup] = {};
      for (int64_t j = 0; j < n; ++j) {
        const int64_t p = chunk_begin + j;
        const int64_t slot = static_cast<int64_t>(block_table[p / kv.block_size]) * kv.block_size +
                             p % kv.block_size;
        const float value = kv.load(kv.row_index(layer, 1, slot, kv_head), i);
#pragma unroll
        for (int g = 0; g < kMaxGroup; ++g) {
          if (g < num_group_heads) value_sum[g] += scores[g][j] * value;
        }
      }
#pragma unroll
      for (int g = 0; g < kMaxGroup; ++g) acc[g][k] = acc[g][k] * correction[g] + value_sum[g];
    }
  }

#pragma unroll
  for (int g = 0; g < kMaxGroup; ++g) {
    if (g >= num_group_heads) break;
    const int64_t h = first_head + g;
    const int64_t out_row = (t * batch.num_heads + h) * d;
    if (num_splits == 1) {
#pragma unroll
      for (int k = 0; k < kDimsPerThread; ++k) {
        const int64_t i = threadIdx.x + k * kAttentionThreads;
        if (i < d) out[out_row + i] = running_sum[g] > 0.0f ? acc[g][k] / running_sum[g] : 0.0f;
      }
      continue;
    }
    // partials: [num_tokens, num_heads, num_splits, head_dim + 2] = (acc..., max, sum)
    float* partial = partials + ((t * batch.num_heads + h) * num_splits + split) * (d + 2);
#pragma unroll
    for (int k = 0; k < kDimsPerThread; ++k) {
      const int64_t i = threadIdx.x + k * kAttentionThreads;
      if (i < d) partial[i] = acc[g][k];
    }
    if (threadIdx.x == 0) {
      partial[d] = running_max[g];
      partial[d + 1] = running_sum[g];
    }
  }
}

// ---- vectorized paged attention: head_dim = 8 * kLanesPerKey ----
// Each key row is read by kLanesPerKey lanes, 8 elements (one 16-byte bf16 load) per lane, so a
// warp reads 32 / kLanesPerKey keys at once and the block's 4 warps are kStreams independent
// online-softmax streams over the split's keys; the streams' (max, sum, acc) are combined in
// shared memory at the end.

// Elements index..index+7 of the cache as fp32 (index a multiple of 8).
template <KvDType kDType>
__device__ inline void load8(const KvArgs& kv, int64_t index, float* out) {
  if constexpr (kDType == KvDType::bf16) {
    const uint4 packed =
        *reinterpret_cast<const uint4*>(static_cast<const uint16_t*>(kv.data) + index);
    const uint32_t words[4] = {packed.x, packed.y, packed.z, packed.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      out[2 * i] = __uint_as_float(words[i] << 16);
      out[2 * i + 1] = __uint_as_float(words[i] & 0xffff0000u);
    }
  } else if constexpr (kDType == KvDType::f32) {
    const float4* src = reinterpret_cast<const float4*>(static_cast<const float*>(kv.data) + index);
    const float4 a = src[0];
    const float4 b = src[1];
    out[0] = a.x, out[1] = a.y, out[2] = a.z, out[3] = a.w;
    out[4] = b.x, out[5] = b.y, out[6] = b.z, out[7] = b.w;
  } else {
    const uint2 packed =
        *reinterpret_cast<const uint2*>(static_cast<const int8_t*>(kv.data) + index);
    const float scale = kv.scales[index / kv.head_dim];
    const int8_t* codes = reinterpret_cast<const int8_t*>(&packed);
#pragma unroll
    for (int i = 0; i < 8; ++i) out[i] = static_cast<float>(codes[i]) * scale;
  }
}

template <KvDType kDType, int kLanesPerKey>
__global__ void __launch_bounds__(kAttentionThreads)
    paged_attention_vector_kernel(const float* q, KvArgs kv, int64_t layer, BatchArgs batch,
                                  float scale, int64_t partition_size, float* partials,
                                  float* out) {
  constexpr int kKeysPerWarp = 32 / kLanesPerKey;
  constexpr int kStreams = kAttentionWarps * kKeysPerWarp;
  constexpr int kHeadDim = 8 * kLanesPerKey;
  constexpr int kUnroll = 2;  // keys per stream loaded before any is used
  __shared__ float stream_max[kStreams][kMaxGroup];
  __shared__ float stream_sum[kStreams][kMaxGroup];
  __shared__ float stream_acc[kStreams][kMaxGroup][kHeadDim];
  const int64_t t = blockIdx.x;
  const int64_t split = blockIdx.z;
  const int64_t num_splits = gridDim.z;
  const int64_t group = batch.num_heads / batch.num_kv_heads;
  const int64_t head_chunks = (group + kMaxGroup - 1) / kMaxGroup;
  const int64_t kv_head = blockIdx.y / head_chunks;
  const int64_t first_in_group = (blockIdx.y % head_chunks) * kMaxGroup;
  const int num_group_heads = static_cast<int>(min_i64(kMaxGroup, group - first_in_group));
  const int64_t first_head = kv_head * group + first_in_group;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int sub = lane / kLanesPerKey;   // which of the warp's keys
  const int part = lane % kLanesPerKey;  // which 8 elements of the row
  const int stream = warp * kKeysPerWarp + sub;

  const bool padding = batch.slot_mapping[t] < 0;
  const int64_t num_keys = padding ? 0 : static_cast<int64_t>(batch.positions[t]) + 1;
  const int64_t begin = split * partition_size;
  const int64_t end = min_i64(num_keys, begin + partition_size);
  const int32_t* block_table =
      batch.block_tables + sequence_of(batch, t) * batch.max_blocks_per_seq;

  float qv[kMaxGroup][8];
#pragma unroll
  for (int g = 0; g < kMaxGroup; ++g) {
#pragma unroll
    for (int i = 0; i < 8; ++i) qv[g][i] = 0.0f;
    if (g < num_group_heads) {
      const float4* src = reinterpret_cast<const float4*>(
          q + (t * batch.num_heads + first_head + g) * kHeadDim + part * 8);
      const float4 a = src[0];
      const float4 b = src[1];
      qv[g][0] = a.x * scale, qv[g][1] = a.y * scale, qv[g][2] = a.z * scale;
      qv[g][3] = a.w * scale, qv[g][4] = b.x * scale, qv[g][5] = b.y * scale;
      qv[g][6] = b.z * scale, qv[g][7] = b.w * scale;
    }
  }
  float running_max[kMaxGroup];
  float running_sum[kMaxGroup];
  float acc[kMaxGroup][8];
#pragma unroll
  for (int g = 0; g < kMaxGroup; ++g) {
    running_max[g] = -INFINITY;
    running_sum[g] = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i) acc[g][i] = 0.0f;
  }
  // The warp's lanes share `base`, so every lane takes part in every shuffle.
  for (int64_t base = begin + warp * kKeysPerWarp; base < end;
       base += static_cast<int64_t>(kStreams) * kUnroll) {
    float keys[kUnroll][8];
    float values[kUnroll][8];
    bool valid[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t p = base + u * kStreams + sub;
      valid[u] = p < end;
#pragma unroll
      for (int i = 0; i < 8; ++i) keys[u][i] = values[u][i] = 0.0f;
      if (valid[u]) {
        // Positions fit 32 bits: 32-bit division, several times cheaper than 64-bit.
        const int32_t position = static_cast<int32_t>(p);
        const int32_t block_size = static_cast<int32_t>(kv.block_size);
        const int64_t slot = static_cast<int64_t>(block_table[position / block_size]) * block_size +
                             position % block_size;
        load8<kDType>(kv, kv.row_index(layer, 0, slot, kv_head) + part * 8, keys[u]);
        load8<kDType>(kv, kv.row_index(layer, 1, slot, kv_head) + part * 8, values[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      float score[kMaxGroup];
#pragma unroll
      for (int g = 0; g < kMaxGroup; ++g) {
        score[g] = 0.0f;
#pragma unroll
        for (int i = 0; i < 8; ++i) score[g] += qv[g][i] * keys[u][i];
      }
#pragma unroll
      for (int offset = kLanesPerKey / 2; offset > 0; offset /= 2) {
#pragma unroll
        for (int g = 0; g < kMaxGroup; ++g) {
          score[g] += __shfl_xor_sync(0xffffffffu, score[g], offset);
        }
      }
      if (!valid[u]) continue;
#pragma unroll
      for (int g = 0; g < kMaxGroup; ++g) {
        if (g >= num_group_heads) break;
        const float new_max = fmaxf(running_max[g], score[g]);
        const float correction = expf(running_max[g] - new_max);  // 0 on the first key
        const float weight = expf(score[g] - new_max);
        running_sum[g] = running_sum[g] * correction + weight;
#pragma unroll
        for (int i = 0; i < 8; ++i) acc[g][i] = acc[g][i] * correction + weight * values[u][i];
        running_max[g] = new_max;
      }
    }
  }

#pragma unroll
  for (int g = 0; g < kMaxGroup; ++g) {
    if (g >= num_group_heads) break;
#pragma unroll
    for (int i = 0; i < 8; ++i) stream_acc[stream][g][part * 8 + i] = acc[g][i];
    if (part == 0) {
      stream_max[stream][g] = running_max[g];
      stream_sum[stream][g] = running_sum[g];
    }
  }
  __syncthreads();
  for (int idx = threadIdx.x; idx < num_group_heads * kHeadDim; idx += blockDim.x) {
    const int g = idx / kHeadDim;
    const int i = idx % kHeadDim;
    float global_max = -FLT_MAX;
    for (int st = 0; st < kStreams; ++st) {
      if (stream_sum[st][g] > 0.0f) global_max = fmaxf(global_max, stream_max[st][g]);
    }
    float total = 0.0f;
    float value = 0.0f;
    for (int st = 0; st < kStreams; ++st) {
      if (stream_sum[st][g] > 0.0f) {
        const float w = expf(stream_max[st][g] - global_max);
        total += stream_sum[st][g] * w;
        value += stream_acc[st][g][i] * w;
      }
    }
    const int64_t h = first_head + g;
    if (num_splits == 1) {
      out[(t * batch.num_heads + h) * kHeadDim + i] = total > 0.0f ? value / total : 0.0f;
    } else {
      // partials: [num_tokens, num_heads, num_splits, head_dim + 2] = (acc..., max, sum)
      float* partial = partials + ((t * batch.num_heads + h) * num_splits + split) * (kHeadDim + 2);
      partial[i] = value;
      if (i == 0) {
        partial[kHeadDim] = global_max;
        partial[kHeadDim + 1] = total;
      }
    }
  }
}

// Grid (token, head); combines the splits' partials with the log-sum-exp rescaling.
__global__ void attention_reduce_kernel(const float* partials, int64_t num_heads, int64_t head_dim,
                                        int64_t num_splits, float* out) {
  const int64_t t = blockIdx.x;
  const int64_t h = blockIdx.y;
  const int64_t d = head_dim;
  const float* base = partials + (t * num_heads + h) * num_splits * (d + 2);
  float global_max = -FLT_MAX;
  for (int64_t s = 0; s < num_splits; ++s) {
    if (base[s * (d + 2) + d + 1] > 0.0f) global_max = fmaxf(global_max, base[s * (d + 2) + d]);
  }
  float total = 0.0f;
  for (int64_t s = 0; s < num_splits; ++s) {
    const float sum = base[s * (d + 2) + d + 1];
    if (sum > 0.0f) total += sum * expf(base[s * (d + 2) + d] - global_max);
  }
  for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
    float value = 0.0f;
    for (int64_t s = 0; s < num_splits; ++s) {
      const float sum = base[s * (d + 2) + d + 1];
      if (sum > 0.0f) value += base[s * (d + 2) + i] * expf(base[s * (d + 2) + d] - global_max);
    }
    out[(t * num_heads + h) * d + i] = total > 0.0f ? value / total : 0.0f;
  }
}

// Launches the vectorized kernel for head_dim = 8 * kLanesPerKey and the cache's dtype.
template <int kLanesPerKey, typename Launch>
void launch_vector_attention(KvDType dtype, const Launch& launch) {
  switch (dtype) {
    case KvDType::f32:
      launch(paged_attention_vector_kernel<KvDType::f32, kLanesPerKey>);
      return;
    case KvDType::bf16:
      launch(paged_attention_vector_kernel<KvDType::bf16, kLanesPerKey>);
      return;
    case KvDType::int8:
      launch(paged_attention_vector_kernel<KvDType::int8, kLanesPerKey>);
      return;
  }
}

}  // namespace

void launch_write_kv(const KvCacheView& kv, int64_t layer, const float* k, const float* v,
                     const int64_t* slot_mapping, int64_t num_tokens, cudaStream_t stream) {
  if (num_tokens == 0) return;
  const dim3 grid(static_cast<unsigned>(num_tokens), static_cast<unsigned>(kv.spec.num_kv_heads),
                  2);
  write_kv_kernel<<<grid, kWriteThreads, 0, stream>>>(kv_args(kv), layer, k, v, slot_mapping);
  TIDAL_CUDA_CHECK_LAUNCH();
}

AttentionSplit choose_attention_split(const AttentionBatch& batch, int64_t block_size,
                                      int64_t min_partition_size) {
  const int64_t max_context = batch.max_blocks_per_seq * block_size;
  const int64_t rows = std::max<int64_t>(batch.num_tokens * batch.num_heads, 1);
  const int64_t by_length = (max_context + min_partition_size - 1) / min_partition_size;
  const int64_t num_splits =
      std::max<int64_t>(1, std::min(by_length, kAttentionMaxPartials / rows));
  const int64_t per_split = (max_context + num_splits - 1) / num_splits;
  const int64_t partition_size =
      std::max<int64_t>((per_split + kChunk - 1) / kChunk * kChunk, kChunk);
  return AttentionSplit{num_splits, partition_size};
}

int64_t attention_workspace_floats(const AttentionBatch& batch, const AttentionSplit& split) {
  if (split.num_splits == 1) return 0;
  return batch.num_tokens * batch.num_heads * split.num_splits * (batch.head_dim + 2);
}

void launch_paged_attention(const float* q, const KvCacheView& kv, int64_t layer,
                            const AttentionBatch& batch, float scale, const AttentionSplit& split,
                            float* workspace, float* out, cudaStream_t stream) {
  if (batch.num_tokens == 0) return;
  if (batch.head_dim > kAttentionMaxHeadDim || batch.num_kv_heads <= 0 ||
      batch.num_heads % batch.num_kv_heads != 0) {
    throw std::invalid_argument(
        "cuda paged_attention: need head_dim <= 256 and num_heads a "
        "multiple of num_kv_heads");
  }
  const BatchArgs args{batch.num_seqs,     batch.query_start_loc, batch.positions,
                       batch.slot_mapping, batch.block_tables,    batch.max_blocks_per_seq,
                       batch.num_heads,    batch.num_kv_heads,    batch.head_dim};
  const int64_t group = batch.num_heads / batch.num_kv_heads;
  const int64_t head_chunks = (group + kMaxGroup - 1) / kMaxGroup;
  const dim3 grid(static_cast<unsigned>(batch.num_tokens),
                  static_cast<unsigned>(batch.num_kv_heads * head_chunks),
                  static_cast<unsigned>(split.num_splits));
  const auto launch = [&](auto kernel) {
    kernel<<<grid, kAttentionThreads, 0, stream>>>(q, kv_args(kv), layer, args, scale,
                                                   split.partition_size, workspace, out);
  };
  switch (batch.head_dim) {
    case 16:
      launch_vector_attention<2>(kv.spec.dtype, launch);
      break;
    case 32:
      launch_vector_attention<4>(kv.spec.dtype, launch);
      break;
    case 64:
      launch_vector_attention<8>(kv.spec.dtype, launch);
      break;
    case 128:
      launch_vector_attention<16>(kv.spec.dtype, launch);
      break;
    case 256:
      launch_vector_attention<32>(kv.spec.dtype, launch);
      break;
    default:  // other head sizes: element by element
      launch(paged_attention_kernel);
  }
  TIDAL_CUDA_CHECK_LAUNCH();
  if (split.num_splits > 1) {
    const dim3 reduce_grid(static_cast<unsigned>(batch.num_tokens),
                           static_cast<unsigned>(batch.num_heads));
    attention_reduce_kernel<<<reduce_grid, kAttentionThreads, 0, stream>>>(
        workspace, batch.num_heads, batch.head_dim, split.num_splits, out);
    TIDAL_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace tidal::kernels::cuda
