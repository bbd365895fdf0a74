// Argmax and temperature / top-k / top-p sampling on the device, one block per row. Spec:
// kernels::argmax, sampling_distribution and sample_from_distribution (kernels/sampling.cpp).
//
// Instead of sorting the vocabulary, the top-k and top-p cuts are thresholds on the 32-bit order
// keys of the logits found by radix select, 8 bits a pass (kernels/cuda/sampling_plan.h): over
// counts for top-k, over fixed-point masses for top-p (integer sums: exact whatever the order of
// the shared-memory atomics), the top-p threshold then checked against double sums and moved to
// the neighbouring key when a rounding put it on the wrong side. Ties at a threshold are kept in
// index order up to an index cut, which is what the reference's stable order (ties to the lower
// index) gives. Passes that need index order (the tie cut, the draw) give each thread one
// contiguous chunk of the row; the others stride over the row so loads coalesce.
#include <climits>
#include <stdexcept>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/launchers.h"
#include "kernels/cuda/sampling_plan.h"

namespace tidal::kernels::cuda {

namespace {

// Monotone map float -> uint32: a < b (as floats) iff key(a) < key(b).
__device__ inline uint32_t order_key(float value) {
  const uint32_t bits = __float_as_uint(value);
  return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
}
__device__ inline float key_value(uint32_t key) {
  return __uint_as_float((key & 0x80000000u) ? key & 0x7FFFFFFFu : ~key);
}

struct Chunk {
  int64_t begin;
  int64_t end;
};
__device__ inline Chunk thread_chunk(int64_t vocab) {
  const int64_t size = (vocab + blockDim.x - 1) / blockDim.x;
  const int64_t begin = min_i64(static_cast<int64_t>(threadIdx.x) * size, vocab);
  return Chunk{begin, min_i64(begin + size, vocab)};
}

// Largest value of the row and its lowest index; every thread gets the result.
__device__ void block_argmax(const float* row, int64_t vocab, float* value_scratch,
                             long long* index_scratch, float* best_value, long long* best_index) {
  const Chunk chunk = thread_chunk(vocab);
  float value = -INFINITY;
  long long index = LLONG_MAX;
  for (int64_t i = chunk.begin; i < chunk.end; ++i) {
    if (index == LLONG_MAX || row[i] > value) {
      value = row[i];
      index = i;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    const float other_value = __shfl_xor_sync(0xffffffffu, value, offset);
    const long long other_index = __shfl_xor_sync(0xffffffffu, index, offset);
    if (other_index != LLONG_MAX && (index == LLONG_MAX || other_value > value ||
                                     (other_value == value && other_index < index))) {
      value = other_value;
      index = other_index;
    }
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) {
    value_scratch[threadIdx.x / 32] = value;
    index_scratch[threadIdx.x / 32] = index;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < (blockDim.x + 31) / 32; ++w) {
      const float other_value = value_scratch[w];
      const long long other_index = index_scratch[w];
      if (other_index != LLONG_MAX && (index == LLONG_MAX || other_value > value ||
                                       (other_value == value && other_index < index))) {
        value = other_value;
        index = other_index;
      }
    }
    value_scratch[0] = value;
    index_scratch[0] = index;
  }
  __syncthreads();
  *best_value = value_scratch[0];
  *best_index = index_scratch[0];
}

__global__ void argmax_kernel(const float* logits, int64_t vocab, int32_t* out) {
  __shared__ float value_scratch[32];
  __shared__ long long index_scratch[32];
  float value;
  long long index;
  block_argmax(logits + static_cast<int64_t>(blockIdx.x) * vocab, vocab, value_scratch,
               index_scratch, &value, &index);
  if (threadIdx.x == 0) out[blockIdx.x] = static_cast<int32_t>(index);
}

// A cut keeps the keys above `threshold` and, of the keys equal to it, those at indices up to
// `index_cut` (the first ties in index order, as the reference's stable order keeps them).
struct Cut {
  bool active;
  uint32_t threshold;
  long long index_cut;

  __device__ bool keeps(int64_t i, uint32_t key) const {
    return !active || key > threshold || (key == threshold && i <= index_cut);
  }
};

// Warp 0 only: the highest bin b with above + sum(hist[b..255]) >= target, and the sum of the
// bins above it (plus `above`) in *new_above; when no bin reaches the target (fixed-point
// rounding), the lowest non-empty bin.
__device__ void select_bin(const unsigned long long* hist, unsigned long long above,
                           unsigned long long target, int* bin, unsigned long long* new_above) {
  constexpr int kBinsPerLane = kSampleBins / 32;
  const int lane = static_cast<int>(threadIdx.x);
  const int top = kSampleBins - 1 - lane * kBinsPerLane;  // this lane's bins: top, top - 1, ...
  unsigned long long local = 0;
#pragma unroll
  for (int j = 0; j < kBinsPerLane; ++j) local += hist[top - j];
  unsigned long long inclusive = local;  // over lanes 0..lane, i.e. bins from the top down
  for (int offset = 1; offset < 32; offset *= 2) {
    const unsigned long long other = __shfl_up_sync(0xffffffffu, inclusive, offset);
    if (lane >= offset) inclusive += other;
  }
  const unsigned long long total = __shfl_sync(0xffffffffu, inclusive, 31);
  const unsigned reach = __ballot_sync(0xffffffffu, above + inclusive >= target);
  if (reach != 0) {
    if (lane == __ffs(reach) - 1) {
      unsigned long long running = above + inclusive - local;
      for (int j = 0; j < kBinsPerLane; ++j) {
        if (running + hist[top - j] >= target || j == kBinsPerLane - 1) {
          *bin = top - j;
          *new_above = running;
          break;
        }
        running += hist[top - j];
      }
    }
    return;
  }
  const unsigned nonempty = __ballot_sync(0xffffffffu, local > 0);
  if (nonempty != 0 && lane == 31 - __clz(nonempty)) {
    for (int j = kBinsPerLane - 1; j >= 0; --j) {
      if (hist[top - j] > 0) {
        *bin = top - j;
        *new_above = above + total - hist[top - j];
        break;
      }
    }
  }
}

// Block-wide minimum / maximum of uint32 (every thread gets it); slot: one shared uint32.
__device__ uint32_t block_min_u32(uint32_t value, uint32_t* slot) {
  __syncthreads();
  if (threadIdx.x == 0) *slot = 0xFFFFFFFFu;
  __syncthreads();
  value = __reduce_min_sync(0xffffffffu, value);
  if (threadIdx.x % 32 == 0) atomicMin(slot, value);
  __syncthreads();
  return *slot;
}
__device__ uint32_t block_max_u32(uint32_t value, uint32_t* slot) {
  __syncthreads();
  if (threadIdx.x == 0) *slot = 0;
  __syncthreads();
  value = __reduce_max_sync(0xffffffffu, value);
  if (threadIdx.x % 32 == 0) atomicMax(slot, value);
  __syncthreads();
  return *slot;
}

struct SampleArgs {
  float temperature;
  int64_t top_k;
  float top_p;
  bool top_k_cut;
  bool top_p_cut;
  int fixed_point_bits;
};

__global__ void __launch_bounds__(kSampleThreads)
    sample_kernel(const float* logits, int64_t vocab, SampleArgs args, const double* uniforms,
                  int32_t* out) {
  __shared__ unsigned long long hist[kSampleBins];
  __shared__ float value_scratch[32];
  __shared__ long long index_scratch[32];
  __shared__ long long count_scratch[32];
  __shared__ double mass_scratch[32];
  __shared__ long long count_scan[kSampleThreads];
  __shared__ double mass_scan[kSampleThreads];
  __shared__ uint32_t key_slot;
  __shared__ int selected_bin;
  __shared__ unsigned long long selected_above;
  __shared__ long long index_cut;
  __shared__ int found_index;
  __shared__ int last_index;
  const float* row = logits + static_cast<int64_t>(blockIdx.x) * vocab;
  const Chunk chunk = thread_chunk(vocab);

  float max_value;
  long long max_index;
  block_argmax(row, vocab, value_scratch, index_scratch, &max_value, &max_index);
  if (args.temperature == 0.0f) {
    if (threadIdx.x == 0) out[blockIdx.x] = static_cast<int32_t>(max_index);
    return;
  }
  const auto weight_of = [&](float logit) {
    return exp((static_cast<double>(logit) - static_cast<double>(max_value)) /
               static_cast<double>(args.temperature));
  };
  const auto clear_hist = [&] {
    __syncthreads();
    for (int b = threadIdx.x; b < kSampleBins; b += blockDim.x) hist[b] = 0;
    __syncthreads();
  };
  // One digit of a radix select: warp 0 picks the bin, every thread gets (bin, above).
  const auto pick = [&](unsigned long long above, unsigned long long target) {
    __syncthreads();
    if (threadIdx.x < 32) select_bin(hist, above, target, &selected_bin, &selected_above);
    __syncthreads();
  };
  // The index of the `rank`-th (0-based) index-ordered key equal to `threshold` among those
  // `prior` keeps: one in-order pass over the threads' contiguous chunks.
  const auto tie_index_cut = [&](const Cut& prior, uint32_t threshold, long long rank) {
    long long ties = 0;
    for (int64_t i = chunk.begin; i < chunk.end; ++i) {
      const uint32_t key = order_key(row[i]);
      ties += key == threshold && prior.keeps(i, key);
    }
    const long long base = block_exclusive_scan(ties, count_scan);
    if (threadIdx.x == 0) index_cut = -1;
    __syncthreads();
    if (rank >= base && rank < base + ties) {
      long long seen = base;
      for (int64_t i = chunk.begin; i < chunk.end; ++i) {
        const uint32_t key = order_key(row[i]);
        if (key == threshold && prior.keeps(i, key) && seen++ == rank) {
          index_cut = i;
          break;
        }
      }
    }
    __syncthreads();
    return index_cut;
  };
  const Cut no_cut{false, 0, 0};

  // ---- top-k: radix select of the k-th largest key over counts (exact) ----
  Cut k_cut = no_cut;
  if (args.top_k_cut) {
    uint32_t prefix = 0;
    uint32_t mask = 0;
    unsigned long long above = 0;
    for (int shift = 32 - kSampleDigitBits; shift >= 0; shift -= kSampleDigitBits) {
      clear_hist();
      for (int64_t i = threadIdx.x; i < vocab; i += blockDim.x) {
        const uint32_t key = order_key(row[i]);
        if ((key & mask) == prefix) atomicAdd(&hist[(key >> shift) & (kSampleBins - 1)], 1ull);
      }
      pick(above, static_cast<unsigned long long>(args.top_k));
      prefix |= static_cast<uint32_t>(selected_bin) << shift;
      mask |= static_cast<uint32_t>(kSampleBins - 1) << shift;
      above = selected_above;
    }
    k_cut = Cut{true, prefix, 0};
    k_cut.index_cut = tie_index_cut(no_cut, prefix, args.top_k - static_cast<long long>(above) - 1);
  }

  // ---- total kept mass (double), with the first top-p digit's fixed-point histogram ----
  const double fixed_scale = ldexp(1.0, args.fixed_point_bits);
  const int top_shift = 32 - kSampleDigitBits;
  if (args.top_p_cut) clear_hist();
  double local_mass = 0.0;
  for (int64_t i = threadIdx.x; i < vocab; i += blockDim.x) {
    const uint32_t key = order_key(row[i]);
    if (!k_cut.keeps(i, key)) continue;
    const double w = weight_of(row[i]);
    local_mass += w;
    if (args.top_p_cut) {
      atomicAdd(&hist[key >> top_shift], static_cast<unsigned long long>(w * fixed_scale));
    }
  }
  const double total = block_sum(local_mass, mass_scratch);

  // ---- top-p: radix select over fixed-point masses, then checked with double sums ----
  Cut p_cut = no_cut;
  double nucleus_total = total;
  if (args.top_p_cut) {
    const double target = static_cast<double>(args.top_p) * total;
    const auto target_fixed = static_cast<unsigned long long>(ceil(target * fixed_scale));
    pick(0, target_fixed);
    uint32_t prefix = static_cast<uint32_t>(selected_bin) << top_shift;
    uint32_t mask = static_cast<uint32_t>(kSampleBins - 1) << top_shift;
    unsigned long long above = selected_above;
    for (int shift = top_shift - kSampleDigitBits; shift >= 0; shift -= kSampleDigitBits) {
      clear_hist();
      for (int64_t i = threadIdx.x; i < vocab; i += blockDim.x) {
        const uint32_t key = order_key(row[i]);
        if ((key & mask) != prefix || !k_cut.keeps(i, key)) continue;
        atomicAdd(&hist[(key >> shift) & (kSampleBins - 1)],
                  static_cast<unsigned long long>(weight_of(row[i]) * fixed_scale));
      }
      pick(above, target_fixed);
      prefix |= static_cast<uint32_t>(selected_bin) << shift;
      mask |= static_cast<uint32_t>(kSampleBins - 1) << shift;
      above = selected_above;
    }
    // The threshold V must satisfy mass(key > V) < target <= mass(key >= V) in double; a
    // fixed-point rounding at a boundary moves it to the neighbouring kept key.
    uint32_t threshold = prefix;
    double mass_greater = 0.0;
    long long num_ties = 0;
    for (int step = 0;; ++step) {
      const bool may_move = step < kSampleMaxCorrections;
      double greater = 0.0;
      long long ties = 0;
      uint32_t next_above = 0xFFFFFFFFu;
      uint32_t next_below = 0;
      bool has_below = false;
      for (int64_t i = threadIdx.x; i < vocab; i += blockDim.x) {
        const uint32_t key = order_key(row[i]);
        if (!k_cut.keeps(i, key)) continue;
        if (key > threshold) {
          greater += weight_of(row[i]);
          next_above = min(next_above, key);
        } else if (key == threshold) {
          ++ties;
        } else {
          next_below = max(next_below, key);
          has_below = true;
        }
      }
      mass_greater = block_sum(greater, mass_scratch);
      num_ties = block_sum(ties, count_scratch);
      next_above = block_min_u32(next_above, &key_slot);
      const bool any_below = block_sum(static_cast<long long>(has_below), count_scratch) > 0;
      next_below = block_max_u32(next_below, &key_slot);
      const double tie_weight = weight_of(key_value(threshold));
      if (may_move && mass_greater >= target) {  // keys above V already reach the target
        threshold = next_above;
      } else if (may_move && any_below &&
                 (num_ties == 0 || mass_greater + num_ties * tie_weight < target)) {
        // V's ties do not reach it (or V is no kept key): the boundary is below V
        threshold = next_below;
      } else {
        break;
      }
    }
    const double tie_weight = weight_of(key_value(threshold));
    // The fewest ties (at least one) that bring the mass to the target.
    const long long needed = static_cast<long long>(ceil((target - mass_greater) / tie_weight));
    const long long num_needed = max(1LL, min(needed, num_ties));
    p_cut = Cut{true, threshold, 0};
    p_cut.index_cut = tie_index_cut(k_cut, threshold, num_needed - 1);
    double nucleus_mass = 0.0;
    for (int64_t i = threadIdx.x; i < vocab; i += blockDim.x) {
      const uint32_t key = order_key(row[i]);
      if (k_cut.keeps(i, key) && p_cut.keeps(i, key)) nucleus_mass += weight_of(row[i]);
    }
    nucleus_total = block_sum(nucleus_mass, mass_scratch);
  }

  // ---- inverse-CDF draw over probs = float(w / nucleus_total), in index order ----
  const auto for_each_kept = [&](auto&& f) {
    for (int64_t i = chunk.begin; i < chunk.end; ++i) {
      const uint32_t key = order_key(row[i]);
      if (k_cut.keeps(i, key) && p_cut.keeps(i, key)) f(i);
    }
  };
  double chunk_probs = 0.0;
  for_each_kept([&](int64_t i) {
    chunk_probs += static_cast<double>(static_cast<float>(weight_of(row[i]) / nucleus_total));
  });
  const double base = block_exclusive_scan(chunk_probs, mass_scan);
  const double draw_target = uniforms[blockIdx.x] * block_sum(chunk_probs, mass_scratch);
  if (threadIdx.x == 0) {
    found_index = INT_MAX;
    last_index = -1;
  }
  __syncthreads();
  double running = base;
  int first_crossing = INT_MAX;
  int last_kept = -1;
  for_each_kept([&](int64_t i) {
    const float prob = static_cast<float>(weight_of(row[i]) / nucleus_total);
    if (prob <= 0.0f) return;
    last_kept = static_cast<int>(i);
    running += prob;
    if (first_crossing == INT_MAX && running > draw_target) first_crossing = static_cast<int>(i);
  });
  atomicMin(&found_index, first_crossing);
  atomicMax(&last_index, last_kept);
  __syncthreads();
  if (threadIdx.x == 0) {
    out[blockIdx.x] = found_index != INT_MAX ? found_index : last_index;
  }
}

}  // namespace

void launch_argmax(const float* logits, int64_t num_rows, int64_t vocab, int32_t* out,
                   cudaStream_t stream) {
  if (num_rows == 0) return;
  argmax_kernel<<<static_cast<unsigned>(num_rows), kSampleThreads, 0, stream>>>(logits, vocab, out);
  TIDAL_CUDA_CHECK_LAUNCH();
}

void launch_sample(const float* logits, int64_t num_rows, int64_t vocab,
                   const SamplingParams& params, const double* uniforms, int32_t* out,
                   cudaStream_t stream) {
  const SamplingPlan plan = plan_sampling(vocab, params);  // std::invalid_argument on bad input
  if (num_rows == 0) return;
  const SampleArgs args{params.temperature, params.top_k,   params.top_p,
                        plan.top_k_cut,     plan.top_p_cut, plan.fixed_point_bits};
  sample_kernel<<<static_cast<unsigned>(num_rows), kSampleThreads, 0, stream>>>(logits, vocab, args,
                                                                                uniforms, out);
  TIDAL_CUDA_CHECK_LAUNCH();
}

}  // namespace tidal::kernels::cuda
