// Argmax and temperature / top-k / top-p sampling on the device, one block per row. Spec:
// kernels::argmax, sampling_distribution and sample_from_distribution (kernels/sampling.cpp).
//
// Instead of sorting the vocabulary, the top-k and top-p cuts are thresholds found by bisection
// over the 32-bit order keys of the logits; ties at a threshold are taken in index order through
// a block-wide prefix count, which is what the reference's stable order (ties to the lower
// index) gives. Each thread owns one contiguous chunk of the row, so chunk order is index order.
#include <climits>
#include <stdexcept>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/launchers.h"

namespace tidal::kernels::cuda {

namespace {

constexpr int kSampleThreads = 1024;

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

// A cut "key > threshold, plus the first `ties_needed` (in index order) with key == threshold";
// tie_base is the number of ties before this thread's chunk.
struct Cut {
  bool active;
  uint32_t threshold;
  long long ties_needed;
  long long tie_base;
};

__global__ void __launch_bounds__(kSampleThreads)
    sample_kernel(const float* logits, int64_t vocab, float temperature, int64_t top_k, float top_p,
                  const double* uniforms, int32_t* out) {
  __shared__ float value_scratch[32];
  __shared__ long long index_scratch[32];
  __shared__ long long count_scratch[32];
  __shared__ double mass_scratch[32];
  __shared__ long long count_scan[kSampleThreads];
  __shared__ double mass_scan[kSampleThreads];
  __shared__ int found_index;
  __shared__ int last_index;
  const float* row = logits + static_cast<int64_t>(blockIdx.x) * vocab;
  const Chunk chunk = thread_chunk(vocab);

  float max_value;
  long long max_index;
  block_argmax(row, vocab, value_scratch, index_scratch, &max_value, &max_index);
  if (temperature == 0.0f) {
    if (threadIdx.x == 0) out[blockIdx.x] = static_cast<int32_t>(max_index);
    return;
  }
  const auto weight_of = [&](float logit) {
    return exp((static_cast<double>(logit) - static_cast<double>(max_value)) /
               static_cast<double>(temperature));
  };

  // ---- top-k: the k-th largest key by bisection, ties in index order ----
  const int64_t num_kept = top_k > 0 ? min_i64(top_k, vocab) : vocab;
  Cut k_cut{num_kept < vocab, 0, 0, 0};
  if (k_cut.active) {
    uint64_t lo = 0;
    uint64_t hi = 0xFFFFFFFFull;
    while (lo < hi) {  // largest T with count(key >= T) >= num_kept
      const uint64_t mid = lo + (hi - lo + 1) / 2;
      long long count = 0;
      for (int64_t i = chunk.begin; i < chunk.end; ++i) count += order_key(row[i]) >= mid;
      if (block_sum(count, count_scratch) >= num_kept) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    k_cut.threshold = static_cast<uint32_t>(lo);
    long long greater = 0;
    long long ties = 0;
    for (int64_t i = chunk.begin; i < chunk.end; ++i) {
      const uint32_t key = order_key(row[i]);
      greater += key > k_cut.threshold;
      ties += key == k_cut.threshold;
    }
    k_cut.ties_needed = num_kept - block_sum(greater, count_scratch);
    k_cut.tie_base = block_exclusive_scan(ties, count_scan);
  }
  // Calls f(i, key) for each index of this thread's chunk that passes both cuts.
  const auto for_each_kept = [&](const Cut& p_cut, auto&& f) {
    long long k_rank = k_cut.tie_base;
    long long p_rank = p_cut.tie_base;
    for (int64_t i = chunk.begin; i < chunk.end; ++i) {
      const uint32_t key = order_key(row[i]);
      if (k_cut.active && key <= k_cut.threshold) {
        if (key < k_cut.threshold || k_rank++ >= k_cut.ties_needed) continue;
      }
      if (p_cut.active && key <= p_cut.threshold) {
        if (key < p_cut.threshold || p_rank++ >= p_cut.ties_needed) continue;
      }
      f(i, key);
    }
  };
  const Cut no_cut{false, 0, 0, 0};
  double local_mass = 0.0;
  for_each_kept(no_cut, [&](int64_t i, uint32_t) { local_mass += weight_of(row[i]); });
  const double total = block_sum(local_mass, mass_scratch);

  // ---- top-p: the largest key V whose kept mass at or above V reaches top_p * total ----
  Cut p_cut{top_p < 1.0f, 0, 0, 0};
  if (p_cut.active) {
    const double target = static_cast<double>(top_p) * total;
    uint64_t lo = 0;
    uint64_t hi = 0xFFFFFFFFull;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo + 1) / 2;
      double mass = 0.0;
      for_each_kept(no_cut, [&](int64_t i, uint32_t key) {
        if (key >= mid) mass += weight_of(row[i]);
      });
      if (block_sum(mass, mass_scratch) >= target) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    p_cut.threshold = static_cast<uint32_t>(lo);
    double mass_greater = 0.0;
    long long ties = 0;
    for_each_kept(no_cut, [&](int64_t i, uint32_t key) {
      if (key > p_cut.threshold) mass_greater += weight_of(row[i]);
      ties += key == p_cut.threshold;
    });
    mass_greater = block_sum(mass_greater, mass_scratch);
    const long long num_ties = block_sum(ties, count_scratch);
    const double tie_weight = weight_of(key_value(p_cut.threshold));
    // The fewest ties (at least one) that bring the mass to the target.
    long long needed = static_cast<long long>(ceil((target - mass_greater) / tie_weight));
    p_cut.ties_needed = max(1LL, min(needed, num_ties));
    p_cut.tie_base = block_exclusive_scan(ties, count_scan);
  }

  // ---- inverse-CDF draw over probs = float(w / nucleus_total), in index order ----
  double nucleus_mass = 0.0;
  for_each_kept(p_cut, [&](int64_t i, uint32_t) { nucleus_mass += weight_of(row[i]); });
  const double nucleus_total = block_sum(nucleus_mass, mass_scratch);
  double chunk_probs = 0.0;
  for_each_kept(p_cut, [&](int64_t i, uint32_t) {
    chunk_probs += static_cast<double>(static_cast<float>(weight_of(row[i]) / nucleus_total));
  });
  const double base = block_exclusive_scan(chunk_probs, mass_scan);
  const double target = uniforms[blockIdx.x] * block_sum(chunk_probs, mass_scratch);
  if (threadIdx.x == 0) {
    found_index = INT_MAX;
    last_index = -1;
  }
  __syncthreads();
  double running = base;
  int first_crossing = INT_MAX;
  int last_kept = -1;
  for_each_kept(p_cut, [&](int64_t i, uint32_t) {
    const float prob = static_cast<float>(weight_of(row[i]) / nucleus_total);
    if (prob <= 0.0f) return;
    last_kept = static_cast<int>(i);
    running += prob;
    if (first_crossing == INT_MAX && running > target) first_crossing = static_cast<int>(i);
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
  if (!(params.temperature >= 0.0f) || params.top_k < 0 || !(params.top_p > 0.0f) ||
      params.top_p > 1.0f || vocab <= 0 || vocab > INT_MAX) {
    throw std::invalid_argument(
        "cuda sample: need temperature >= 0, top_k >= 0, 0 < top_p <= 1, 0 < vocab < 2^31");
  }
  if (num_rows == 0) return;
  sample_kernel<<<static_cast<unsigned>(num_rows), kSampleThreads, 0, stream>>>(
      logits, vocab, params.temperature, params.top_k, params.top_p, uniforms, out);
  TIDAL_CUDA_CHECK_LAUNCH();
}

}  // namespace tidal::kernels::cuda
