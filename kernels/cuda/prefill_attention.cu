// Paged attention on tensor cores for batches with prompt chunks: bf16 KV cache, head_dim 64 or
// 128. Spec: reference::paged_attention in kernels/cpu/ (to within bf16 rounding of q and of the
// softmax weights, which the tensor cores multiply in bf16 with fp32 accumulation).
//
// Grid (query tile, head): a tile is up to 64 consecutive query rows of one sequence, 16 per warp.
// The block walks the keys its rows need (0 .. the largest position among them) in tiles of 64:
// K and V [key, dim] go to shared memory as bf16 (V is read transposed by ldmatrix), the next
// tile's copies (cp.async) in flight while this one is used; each warp whose rows reach the tile
// computes its 16 x 64 scores with mma.sync m16n8k16, masks keys past each row's position,
// updates its rows' online softmax (base-2 exponent, the scale folded into q) and multiplies the
// weights, still in registers, by V. The accumulator layout of the score mma is the operand
// layout of the next.
// Padding rows (slot -1) produce zeros.
#include <cuda_bf16.h>

#include <cstdint>
#include <stdexcept>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/launchers.h"

namespace tidal::kernels::cuda {

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kTileRows = 16 * kWarps;  // query rows per block
constexpr int kTileKeys = 64;           // keys per shared-memory tile
constexpr int kPad = 8;                 // bf16 padding per shared row: spreads rows over banks

struct PrefillArgs {
  const uint16_t* kv;  // bf16 cache [layers, blocks, 2, block_size, kv_heads, head_dim]
  int64_t num_blocks;
  int64_t block_size;
  int64_t num_kv_heads;
  int64_t num_seqs;
  int64_t num_heads;
  const int32_t* query_start_loc;  // [num_seqs + 1]
  const int32_t* positions;        // [num_tokens]
  const int64_t* slot_mapping;     // [num_tokens]
  const int32_t* block_tables;     // [num_seqs, max_blocks_per_seq]
  int64_t max_blocks_per_seq;
};

__device__ inline uint32_t pack_bf16(float lo, float hi) {
  const __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);  // lo in the low half
  return *reinterpret_cast<const uint32_t*>(&pair);
}

// c += a b for one m16n8k16 tile: a is 16 x 16 (row major), b is 16 x 8 (column major).
__device__ inline void mma_bf16(float* c, const uint32_t* a, uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Asynchronous 16-byte copy global -> shared (cp.async, L2 only); zeros when !valid.
__device__ inline void copy_16_bytes(uint16_t* shared_dst, const uint16_t* global_src, bool valid) {
  const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(shared_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(global_src),
               "r"(valid ? 16 : 0));
}

// Row (of head_dim elements) of the cache holding key position p's k for kv_head.
__device__ inline int64_t cache_row(const PrefillArgs& args, int64_t layer,
                                    const int32_t* block_table, int64_t p, int64_t kv_head) {
  const int64_t block = block_table[p / args.block_size];
  const int64_t offset = p % args.block_size;
  return ((layer * args.num_blocks + block) * 2 * args.block_size + offset) * args.num_kv_heads +
         kv_head;
}

template <int kHeadDim>
__global__ void __launch_bounds__(kThreads, 3)  // three blocks (12 warps) per multiprocessor
    prefill_attention_kernel(const float* q, PrefillArgs args, int64_t layer, float scale_log2,
                             float* out) {
  constexpr int kStride = kHeadDim + kPad;  // elements per shared row
  // [stage][k, v][key, dim]: the tile being read and the next one, in flight (cp.async).
  extern __shared__ __align__(16) uint16_t kv_tiles[];
  __shared__ int max_position;
  // Cache row of each key's k, per stage (-1 past the last key).
  __shared__ int64_t key_rows[2][kTileKeys];

  // This block's sequence and tile: tiles are numbered sequence by sequence, from the grid's end,
  // so the first blocks scheduled take the last tiles, which have the most keys.
  int64_t tile = gridDim.x - 1 - blockIdx.x;
  int64_t seq = 0;
  for (; seq < args.num_seqs; ++seq) {
    const int64_t len = args.query_start_loc[seq + 1] - args.query_start_loc[seq];
    const int64_t num_tiles = (len + kTileRows - 1) / kTileRows;
    if (tile < num_tiles) break;
    tile -= num_tiles;
  }
  if (seq == args.num_seqs) return;  // the grid is an upper bound on the number of tiles
  const int64_t row0 = args.query_start_loc[seq] + tile * kTileRows;
  const int64_t rows_end = row0 + kTileRows < args.query_start_loc[seq + 1]
                               ? row0 + kTileRows
                               : args.query_start_loc[seq + 1];
  const int64_t head = blockIdx.y;
  const int64_t kv_head = head / (args.num_heads / args.num_kv_heads);
  const int32_t* block_table = args.block_tables + seq * args.max_blocks_per_seq;

  if (threadIdx.x == 0) max_position = -1;
  __syncthreads();
  if (threadIdx.x < kTileRows) {
    const int64_t r = row0 + threadIdx.x;
    if (r < rows_end && args.slot_mapping[r] >= 0) atomicMax(&max_position, args.positions[r]);
  }
  __syncthreads();
  const int64_t num_keys = static_cast<int64_t>(max_position) + 1;

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int group = lane / 4;  // the fragment row (and row + 8) this lane holds
  const int quad = lane % 4;   // the fragment column pair this lane holds
  const int64_t row_a = row0 + warp * 16 + group;
  const int64_t row_b = row_a + 8;
  const bool valid_a = row_a < rows_end && args.slot_mapping[row_a] >= 0;
  const bool valid_b = row_b < rows_end && args.slot_mapping[row_b] >= 0;
  const int position_a = valid_a ? args.positions[row_a] : -1;
  const int position_b = valid_b ? args.positions[row_b] : -1;
  int warp_max_position = max(position_a, position_b);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    warp_max_position =
        max(warp_max_position, __shfl_xor_sync(0xffffffffu, warp_max_position, offset));
  }

  // q as mma A operands, scaled by softmax scale * log2(e): [head_dim / 16][4 registers].
  uint32_t q_frag[kHeadDim / 16][4];
  {
    const float* qa = q + (row_a * args.num_heads + head) * kHeadDim;
    const float* qb = q + (row_b * args.num_heads + head) * kHeadDim;
#pragma unroll
    for (int kt = 0; kt < kHeadDim / 16; ++kt) {
      const int c = kt * 16 + quad * 2;
      q_frag[kt][0] = valid_a ? pack_bf16(qa[c] * scale_log2, qa[c + 1] * scale_log2) : 0u;
      q_frag[kt][1] = valid_b ? pack_bf16(qb[c] * scale_log2, qb[c + 1] * scale_log2) : 0u;
      q_frag[kt][2] = valid_a ? pack_bf16(qa[c + 8] * scale_log2, qa[c + 9] * scale_log2) : 0u;
      q_frag[kt][3] = valid_b ? pack_bf16(qb[c + 8] * scale_log2, qb[c + 9] * scale_log2) : 0u;
    }
  }
  float acc[kHeadDim / 8][4] = {};  // output rows (a, a, b, b) x columns (2 quad, 2 quad + 1)
  float max_a = -INFINITY;
  float max_b = -INFINITY;
  float sum_a = 0.0f;  // this lane's columns only; the quad's lanes are summed at the end
  float sum_b = 0.0f;

  constexpr int kChunksPerRow = kHeadDim / 8;                  // 16-byte chunks per cache row
  const int64_t v_rows = args.block_size * args.num_kv_heads;  // a key's v row minus its k row
  const auto find_rows = [&](int stage, int64_t key0) {
    if (threadIdx.x < kTileKeys) {
      const int64_t p = key0 + threadIdx.x;
      key_rows[stage][threadIdx.x] =
          p < num_keys ? cache_row(args, layer, block_table, p, kv_head) : -1;
    }
  };
  // K and V rows: a row's chunks by consecutive threads (coalesced reads, conflict-free 16-byte
  // stores); zeros past the last key, which the mask drops and which must not be NaN.
  const auto copy_tile = [&](int stage) {
    for (int c = threadIdx.x; c < 2 * kTileKeys * kChunksPerRow; c += kThreads) {
      const int which = c / (kTileKeys * kChunksPerRow);  // 0 = k, 1 = v
      const int key = c % (kTileKeys * kChunksPerRow) / kChunksPerRow;
      const int chunk = c % kChunksPerRow;
      const int64_t row = key_rows[stage][key];
      copy_16_bytes(kv_tiles + ((stage * 2 + which) * kTileKeys + key) * kStride + chunk * 8,
                    row >= 0 ? args.kv + (row + which * v_rows) * kHeadDim + chunk * 8 : args.kv,
                    row >= 0);
    }
    asm volatile("cp.async.commit_group;\n" ::);
  };
  const int64_t num_tiles = (num_keys + kTileKeys - 1) / kTileKeys;
  if (num_tiles > 0) {
    find_rows(0, 0);
    __syncthreads();
    copy_tile(0);
  }
  for (int64_t it = 0; it < num_tiles; ++it) {
    const int stage = static_cast<int>(it % 2);
    const int64_t key0 = it * kTileKeys;
    const bool prefetch = it + 1 < num_tiles;
    if (prefetch) find_rows(stage ^ 1, key0 + kTileKeys);
    // key_rows[stage ^ 1] is written and every warp is done with tile it - 1 (stage ^ 1).
    __syncthreads();
    if (prefetch) {
      copy_tile(stage ^ 1);
      asm volatile("cp.async.wait_group 1;\n" ::);  // this thread's copies of tile it are done
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::);
    }
    __syncthreads();                         // every thread's copies of tile it are visible
    if (key0 > warp_max_position) continue;  // every key of the tile is past the warp's rows
    const uint16_t* k_tile = kv_tiles + (stage * 2) * kTileKeys * kStride;      // [key, dim]
    const uint16_t* v_tile = kv_tiles + (stage * 2 + 1) * kTileKeys * kStride;  // [key, dim]

    // Scores: [8 key groups][rows (a, a, b, b) x keys (2 quad, 2 quad + 1)].
    float score[kTileKeys / 8][4];
#pragma unroll
    for (int nt = 0; nt < kTileKeys / 8; ++nt) {
      score[nt][0] = score[nt][1] = score[nt][2] = score[nt][3] = 0.0f;
#pragma unroll
      for (int kt = 0; kt < kHeadDim / 16; ++kt) {
        const uint32_t* k_row = reinterpret_cast<const uint32_t*>(
            k_tile + (nt * 8 + group) * kStride + kt * 16 + quad * 2);
        mma_bf16(score[nt], q_frag[kt], k_row[0], k_row[4]);
      }
    }
    float tile_max_a = max_a;
    float tile_max_b = max_b;
#pragma unroll
    for (int nt = 0; nt < kTileKeys / 8; ++nt) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int key = static_cast<int>(key0) + nt * 8 + quad * 2 + e;
        if (key > position_a) score[nt][e] = -INFINITY;
        if (key > position_b) score[nt][2 + e] = -INFINITY;
        tile_max_a = fmaxf(tile_max_a, score[nt][e]);
        tile_max_b = fmaxf(tile_max_b, score[nt][2 + e]);
      }
    }
#pragma unroll
    for (int offset = 1; offset < 4; offset *= 2) {
      tile_max_a = fmaxf(tile_max_a, __shfl_xor_sync(0xffffffffu, tile_max_a, offset));
      tile_max_b = fmaxf(tile_max_b, __shfl_xor_sync(0xffffffffu, tile_max_b, offset));
    }
    // A row with no key yet keeps weight 0 everywhere (reference 0 avoids -inf - -inf).
    const float ref_a = tile_max_a == -INFINITY ? 0.0f : tile_max_a;
    const float ref_b = tile_max_b == -INFINITY ? 0.0f : tile_max_b;
    const float correction_a = exp2f(max_a - ref_a);
    const float correction_b = exp2f(max_b - ref_b);
    max_a = tile_max_a;
    max_b = tile_max_b;
    sum_a *= correction_a;
    sum_b *= correction_b;
#pragma unroll
    for (int nt = 0; nt < kTileKeys / 8; ++nt) {
      score[nt][0] = exp2f(score[nt][0] - ref_a);
      score[nt][1] = exp2f(score[nt][1] - ref_a);
      score[nt][2] = exp2f(score[nt][2] - ref_b);
      score[nt][3] = exp2f(score[nt][3] - ref_b);
      sum_a += score[nt][0] + score[nt][1];
      sum_b += score[nt][2] + score[nt][3];
    }
#pragma unroll
    for (int nt = 0; nt < kHeadDim / 8; ++nt) {
      acc[nt][0] *= correction_a;
      acc[nt][1] *= correction_a;
      acc[nt][2] *= correction_b;
      acc[nt][3] *= correction_b;
    }
    // Weights x V, 16 keys at a time: two score tiles form one A operand.
#pragma unroll
    for (int kk = 0; kk < kTileKeys / 16; ++kk) {
      const uint32_t weights[4] = {pack_bf16(score[2 * kk][0], score[2 * kk][1]),
                                   pack_bf16(score[2 * kk][2], score[2 * kk][3]),
                                   pack_bf16(score[2 * kk + 1][0], score[2 * kk + 1][1]),
                                   pack_bf16(score[2 * kk + 1][2], score[2 * kk + 1][3])};
#pragma unroll
      for (int nt = 0; nt < kHeadDim / 8; nt += 2) {
        // Four 8 x 8 blocks of V (keys kk*16 + 0..7 and 8..15, dims of column tiles nt and nt + 1)
        // transposed on load: exactly the B operands of the two mma tiles.
        const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(
            v_tile + (kk * 16 + lane % 16) * kStride + (nt + lane / 16) * 8));
        uint32_t v_frag[4];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(v_frag[0]), "=r"(v_frag[1]), "=r"(v_frag[2]), "=r"(v_frag[3])
                     : "r"(address));
        mma_bf16(acc[nt], weights, v_frag[0], v_frag[1]);
        mma_bf16(acc[nt + 1], weights, v_frag[2], v_frag[3]);
      }
    }
  }

#pragma unroll
  for (int offset = 1; offset < 4; offset *= 2) {
    sum_a += __shfl_xor_sync(0xffffffffu, sum_a, offset);
    sum_b += __shfl_xor_sync(0xffffffffu, sum_b, offset);
  }
  const float inv_a = sum_a > 0.0f ? 1.0f / sum_a : 0.0f;
  const float inv_b = sum_b > 0.0f ? 1.0f / sum_b : 0.0f;
#pragma unroll
  for (int nt = 0; nt < kHeadDim / 8; ++nt) {
    const int c = nt * 8 + quad * 2;
    if (row_a < rows_end) {
      *reinterpret_cast<float2*>(out + (row_a * args.num_heads + head) * kHeadDim + c) =
          make_float2(acc[nt][0] * inv_a, acc[nt][1] * inv_a);
    }
    if (row_b < rows_end) {
      *reinterpret_cast<float2*>(out + (row_b * args.num_heads + head) * kHeadDim + c) =
          make_float2(acc[nt][2] * inv_b, acc[nt][3] * inv_b);
    }
  }
}

template <int kHeadDim>
void launch_kernel(const dim3& grid, const float* q, const PrefillArgs& args, int64_t layer,
                   float scale_log2, float* out, cudaStream_t stream) {
  // Two stages of k and v tiles: past the 48 KiB a kernel gets without asking.
  constexpr int kTileBytes = 2 * 2 * kTileKeys * (kHeadDim + kPad) * sizeof(uint16_t);
  TIDAL_CUDA_CHECK(cudaFuncSetAttribute(prefill_attention_kernel<kHeadDim>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, kTileBytes));
  prefill_attention_kernel<kHeadDim>
      <<<grid, kThreads, kTileBytes, stream>>>(q, args, layer, scale_log2, out);
  TIDAL_CUDA_CHECK_LAUNCH();
}

}  // namespace

bool prefill_attention_supported(const KvCacheSpec& spec, const AttentionBatch& batch) {
  return spec.dtype == KvDType::bf16 && (batch.head_dim == 64 || batch.head_dim == 128) &&
         batch.num_kv_heads > 0 && batch.num_heads % batch.num_kv_heads == 0;
}

void launch_prefill_attention(const float* q, const KvCacheView& kv, int64_t layer,
                              const AttentionBatch& batch, float scale, float* out,
                              cudaStream_t stream) {
  if (!prefill_attention_supported(kv.spec, batch)) {
    throw std::invalid_argument(
        "cuda prefill attention: needs a bf16 KV cache, head_dim 64 or 128 and num_heads a "
        "multiple of num_kv_heads");
  }
  if (batch.num_tokens == 0) return;
  const PrefillArgs args{static_cast<const uint16_t*>(kv.data),
                         kv.spec.num_blocks,
                         kv.spec.block_size,
                         kv.spec.num_kv_heads,
                         batch.num_seqs,
                         batch.num_heads,
                         batch.query_start_loc,
                         batch.positions,
                         batch.slot_mapping,
                         batch.block_tables,
                         batch.max_blocks_per_seq};
  // Each sequence has at most ceil(len / 64) tiles: num_tokens / 64 + num_seqs bounds the sum.
  const dim3 grid(static_cast<unsigned>(batch.num_tokens / kTileRows + batch.num_seqs),
                  static_cast<unsigned>(batch.num_heads));
  const float scale_log2 = scale * 1.4426950408889634f;
  if (batch.head_dim == 64) {
    launch_kernel<64>(grid, q, args, layer, scale_log2, out, stream);
  } else {
    launch_kernel<128>(grid, q, args, layer, scale_log2, out, stream);
  }
}

}  // namespace tidal::kernels::cuda
