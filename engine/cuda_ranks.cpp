// CUDA ranks (built with TIDAL_HAVE_CUDA): see cuda_ranks.h.
#include "engine/cuda_ranks.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/input_error.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_step_graphs.h"
#include "kernels/cuda/kv_arena.h"
#include "models/memory_footprint.h"
#ifdef TIDAL_HAVE_NCCL
#include "engine/nccl_communicator.h"
#include "engine/rank_threads.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/nccl_group.h"
#endif

namespace tidal::engine {
namespace {

// Slack beyond the forward's own activations: cuBLAS/cuBLASLt and attention scratch, the CUDA
// context's allocations after start-up, fragmentation.
constexpr size_t kActivationSlackBytes = size_t{512} << 20;

// Device bytes the forward's activations take at `max_tokens` tokens (PagedModel's workspace:
// residual, normed, sublayer, q, attention output, k, v, gate, up and logits rows, fp32), plus
// with CUDA graphs the graph workspace of the largest graphed batch (the same rows, block
// tables as wide as a position can need).
size_t activation_reserve_bytes(const models::ModelWeights& shard, const ExecutorConfig& config) {
  const models::ModelConfig& c = shard.config;
  const int64_t q_width = shard.shard.num_heads * c.head_dim;
  const int64_t kv_width = shard.shard.num_kv_heads * c.head_dim;
  const int64_t per_token = 3 * c.hidden_size + 2 * q_width + 2 * kv_width +
                            2 * shard.shard.intermediate_size + c.vocab_size;
  int64_t rows = config.max_num_batched_tokens;
  int64_t table_bytes = 0;
  if (config.cuda_graphs) {
    const int64_t graph_rows = kernels::cuda::default_decode_batch_sizes().back();
    rows += graph_rows;
    table_bytes = graph_rows *
                  ((c.max_position_embeddings + config.block_size - 1) / config.block_size) *
                  static_cast<int64_t>(sizeof(int32_t));
  }
  return static_cast<size_t>(rows * per_token) * sizeof(float) + static_cast<size_t>(table_bytes) +
         kActivationSlackBytes;
}

class CudaRankDevice final : public RankDevice {
 public:
  CudaRankDevice(const models::ModelWeights& shard, int device, const ExecutorConfig& config)
      : device_(device), backend_(device), weights_(shard, backend_.memory()) {
    if (!config.cuda_graphs) return;
    graphs_ = std::make_unique<kernels::cuda::CudaStepGraphs>(backend_);
    // bf16 / fp16 / fp8 linears convert their input in the backend's activation scratch: sized
    // now for the largest step, an eager prefill never grows it (which would make every
    // captured graph stale). Before the arena is sized, so the free memory accounts for it.
    const kernels::WeightFormat format = config.quant.format;
    if (format == kernels::WeightFormat::bf16 || format == kernels::WeightFormat::fp16 ||
        format == kernels::WeightFormat::fp8_e4m3) {
      const models::ModelConfig& c = shard.config;
      const int64_t widest_input = std::max(
          {c.hidden_size, shard.shard.num_heads * c.head_dim, shard.shard.intermediate_size});
      backend_.reserve_linear(config.max_num_batched_tokens, widest_input);
    }
  }
  kernels::Backend& backend() override { return backend_; }
  const models::ModelWeightViews& weights() const override { return weights_.views(); }
  kernels::KvCacheView kv_view() override { return arena_->view(); }
  const kernels::KvCacheSpec& kv_spec() const override { return arena_->spec(); }
  size_t kv_arena_bytes() const override { return arena_->bytes(); }
  void bind_thread() override { TIDAL_CUDA_CHECK(cudaSetDevice(device_)); }
  kernels::StepGraphs* step_graphs() override { return graphs_.get(); }

  int device() const { return device_; }
  kernels::cuda::CudaBackend& cuda() { return backend_; }
  void allocate_arena(const kernels::KvCacheSpec& spec) {
    bind_thread();
    arena_ = std::make_unique<kernels::cuda::CudaKvArena>(spec);
  }

 private:
  int device_;
  kernels::cuda::CudaBackend backend_;
  models::DeviceWeights weights_;
  std::unique_ptr<kernels::cuda::CudaKvArena> arena_;
  std::unique_ptr<kernels::cuda::CudaStepGraphs> graphs_;  // null with cuda_graphs off
};

class CudaRankGroup final : public RankGroup {
 public:
  CudaRankGroup(std::span<const models::ModelWeights* const> shards, const ExecutorConfig& config) {
    const int tp = static_cast<int>(shards.size());
    for (int r = 0; r < tp; ++r) {
      devices_.push_back(
          std::make_unique<CudaRankDevice>(*shards[static_cast<size_t>(r)], r, config));
    }
    const int64_t num_blocks = arena_blocks(shards, config);
    for (int r = 0; r < tp; ++r) {
      devices_[static_cast<size_t>(r)]->allocate_arena(models::kv_cache_spec(
          *shards[static_cast<size_t>(r)], num_blocks, config.block_size, config.kv_dtype));
    }
    if (tp == 1) {
      communicators_.push_back(std::make_unique<models::SingleRankCommunicator>());
      return;
    }
#ifdef TIDAL_HAVE_NCCL
    std::vector<int> gpus;  // [tp]: rank r on GPU r
    for (int r = 0; r < tp; ++r) gpus.push_back(r);
    nccl_ranks_ = kernels::cuda::NcclRank::init_all(gpus);
    for (int r = 0; r < tp; ++r) {
      communicators_.push_back(std::make_unique<NcclCommunicator>(
          *nccl_ranks_[static_cast<size_t>(r)], devices_[static_cast<size_t>(r)]->cuda().stream()));
    }
#else
    throw InputError("--tp: " + std::to_string(tp) +
                     " CUDA ranks need NCCL, which this tidal was built without; use --tp 1");
#endif
  }
  int world_size() const override {
    return static_cast<int>(devices_.size());
  }
  RankDevice& rank(int r) const override {
    return *devices_.at(static_cast<size_t>(r));
  }
  models::Communicator& communicator(int r) const override {
    return *communicators_.at(static_cast<size_t>(r));
  }

 private:
  // config.num_gpu_blocks, or the fewest blocks any rank's free memory holds (capped).
  int64_t arena_blocks(std::span<const models::ModelWeights* const> shards,
                       const ExecutorConfig& config) const {
    if (config.num_gpu_blocks > 0) return config.num_gpu_blocks;
    int64_t num_blocks = std::numeric_limits<int64_t>::max();
    for (size_t r = 0; r < devices_.size(); ++r) {
      devices_[r]->bind_thread();
      devices_[r]->cuda().synchronize();
      const kernels::cuda::KvMemoryBudget budget = kernels::cuda::measure_kv_budget(
          config.gpu_memory_utilization, activation_reserve_bytes(*shards[r], config));
      const kernels::KvCacheSpec shape =
          models::kv_cache_spec(*shards[r], 1, config.block_size, config.kv_dtype);
      const int64_t fit =
          kernels::cuda::kv_blocks_that_fit(shape, kernels::cuda::kv_budget_bytes(budget));
      if (fit < 1) {
        throw InputError(
            "--gpu-memory-utilization: " + std::to_string(config.gpu_memory_utilization) +
            " of GPU " + std::to_string(devices_[r]->device()) + " (" +
            std::to_string(budget.total_bytes) + " bytes, " + std::to_string(budget.free_bytes) +
            " free after the weights) leaves no room for a KV block after the activation "
            "reserve of " +
            std::to_string(budget.activation_reserve_bytes) +
            " bytes; raise it, use a smaller model, more --tp or --quant int8");
      }
      num_blocks = std::min(num_blocks, fit);
    }
    if (config.max_gpu_blocks > 0) num_blocks = std::min(num_blocks, config.max_gpu_blocks);
    return num_blocks;
  }

  std::vector<std::unique_ptr<CudaRankDevice>> devices_;  // [tp]
#ifdef TIDAL_HAVE_NCCL
  std::vector<std::unique_ptr<kernels::cuda::NcclRank>> nccl_ranks_;  // [tp] when tp > 1
#endif
  std::vector<std::unique_ptr<models::Communicator>> communicators_;  // [tp]
};

}  // namespace

bool cuda_backend_built() {
  return true;
}

int cuda_device_count() {
  return kernels::cuda::device_count();
}

std::string cuda_device_name(int device) {
  if (device < 0 || device >= cuda_device_count()) return "";
  return kernels::cuda::device_info(device).name;
}

void check_cuda_ranks(int32_t tp, int64_t num_cpu_blocks) {
  const int num_devices = cuda_device_count();
  if (num_devices == 0) {
    throw InputError(
        "--backend: cuda: no CUDA device is present (cudaGetDeviceCount reports none: no GPU, "
        "no driver, or CUDA_VISIBLE_DEVICES hides them); use --backend cpu");
  }
  if (tp > num_devices) {
    throw InputError("--tp: " + std::to_string(tp) + " CUDA ranks need " + std::to_string(tp) +
                     " GPUs, but this machine has " + std::to_string(num_devices));
  }
  if (num_cpu_blocks > 0) {
    throw InputError(
        "--swap-blocks: swap preemption needs a host arena, which the CUDA engine does not have; "
        "use --preemption recompute (or --backend cpu)");
  }
}

std::unique_ptr<RankGroup> make_cuda_rank_group(std::span<const models::ModelWeights* const> shards,
                                                const ExecutorConfig& config) {
  check_cuda_ranks(static_cast<int32_t>(shards.size()), config.num_cpu_blocks);
  return std::make_unique<CudaRankGroup>(shards, config);
}

#ifdef TIDAL_HAVE_NCCL
namespace {

// One NCCL rank's stream and [max_tokens, hidden] buffer on its GPU.
class AllReduceRank {
 public:
  AllReduceRank(int device, size_t count) : device_(device) {
    TIDAL_CUDA_CHECK(cudaSetDevice(device));
    TIDAL_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    buffer_ = kernels::cuda::DeviceBuffer<float>(count);
    TIDAL_CUDA_CHECK(cudaMemset(buffer_.data(), 0, count * sizeof(float)));
  }
  ~AllReduceRank() {
    cudaSetDevice(device_);
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  AllReduceRank(const AllReduceRank&) = delete;
  AllReduceRank& operator=(const AllReduceRank&) = delete;
  cudaStream_t stream() const { return stream_; }
  float* buffer() { return buffer_.data(); }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
  kernels::cuda::DeviceBuffer<float> buffer_;  // [max_tokens, hidden]
};

// Two CUDA events on GPU 0 around a timed group of calls.
class EventPair {
 public:
  EventPair() {
    TIDAL_CUDA_CHECK(cudaSetDevice(0));
    TIDAL_CUDA_CHECK(cudaEventCreate(&start));
    TIDAL_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
};

}  // namespace
#endif

std::vector<double> measure_nccl_all_reduce(int32_t tp, int64_t hidden,
                                            std::span<const int64_t> num_tokens, int repeats) {
  check_cuda_ranks(tp, 0);
  if (tp < 2) {
    throw InputError("--tp: an all-reduce needs at least 2 ranks (got " + std::to_string(tp) + ")");
  }
  if (repeats < 1 || hidden < 1) {
    throw std::invalid_argument("measure_nccl_all_reduce: repeats and hidden must be positive");
  }
#ifdef TIDAL_HAVE_NCCL
  int64_t max_tokens = 1;
  for (const int64_t t : num_tokens) max_tokens = std::max(max_tokens, t);
  std::vector<int> gpus;  // [tp]: rank r on GPU r
  for (int r = 0; r < tp; ++r) gpus.push_back(r);
  std::vector<std::unique_ptr<kernels::cuda::NcclRank>> nccl =
      kernels::cuda::NcclRank::init_all(gpus);
  std::vector<std::unique_ptr<AllReduceRank>> ranks;  // [tp]
  for (int r = 0; r < tp; ++r) {
    ranks.push_back(std::make_unique<AllReduceRank>(r, static_cast<size_t>(max_tokens * hidden)));
  }
  EventPair events;
  RankThreads threads(tp);
  std::vector<double> seconds;  // [num_tokens.size()]
  for (const int64_t tokens : num_tokens) {
    const auto count = static_cast<size_t>(tokens * hidden);
    const auto calls = [&](int r, int num_calls, bool timed) {
      TIDAL_CUDA_CHECK(cudaSetDevice(r));
      AllReduceRank& rank = *ranks[static_cast<size_t>(r)];
      if (timed && r == 0) TIDAL_CUDA_CHECK(cudaEventRecord(events.start, rank.stream()));
      for (int i = 0; i < num_calls; ++i) {
        nccl[static_cast<size_t>(r)]->all_reduce_sum(rank.buffer(), count, rank.stream());
      }
      if (timed && r == 0) TIDAL_CUDA_CHECK(cudaEventRecord(events.stop, rank.stream()));
      TIDAL_CUDA_CHECK(cudaStreamSynchronize(rank.stream()));
    };
    threads.run([&](int r) { calls(r, 1, false); });  // warm-up
    std::vector<double> samples;                      // [repeats] seconds per call
    for (int i = 0; i < repeats; ++i) {
      threads.run([&](int r) { calls(r, kAllReduceCallsPerTiming, true); });
      float ms = 0.0f;
      TIDAL_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start, events.stop));
      samples.push_back(static_cast<double>(ms) * 1e-3 / kAllReduceCallsPerTiming);
    }
    std::sort(samples.begin(), samples.end());
    seconds.push_back(samples[samples.size() / 2]);
  }
  return seconds;
#else
  (void)num_tokens;
  throw InputError("--tp: " + std::to_string(tp) +
                   " CUDA ranks need NCCL, which this tidal was built without; use --tp 1");
#endif
}

}  // namespace tidal::engine
