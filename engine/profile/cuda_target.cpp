#include "engine/profile/cuda_target.h"

#include <chrono>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "base/input_error.h"
#include "engine/cuda_ranks.h"
#include "engine/model_loading.h"
#include "engine/profile/cpu_target.h"
#include "engine/profile/forward_bench.h"
#include "engine/profile/piecewise_fit.h"
#include "engine/profile/profile_sections.h"
#include "engine/profile/sweeps.h"
#include "engine/profile/timing_backend.h"
#include "models/paged_forward.h"
#include "models/quantize_weights.h"
#include "models/tensor_parallel.h"

namespace tidal::profile {

perf::GpuSpec cuda_device_spec(const std::string& device_name) {
  perf::GpuSpec spec;
  spec.name = device_name;
  spec.memory_bytes = 80.0 * 1024 * 1024 * 1024;
  spec.hbm_bandwidth_Bps = 3.35e12;
  spec.flops_bf16 = 989e12;
  spec.interconnect_Bps = 450e9;
  spec.pcie_Bps = 25e9;
  spec.source = "nominal H100-class figures (tidal profile measures every section it writes)";
  return spec;
}

namespace {

using Clock = std::chrono::steady_clock;

// Rank 0 of a tp group whose all-reduces are left out of the forward: the operators of one TP
// rank are timed on GPU 0 alone, the NCCL all-reduce on its own (measure_nccl_all_reduce).
class OperatorsOnlyCommunicator final : public models::Communicator {
 public:
  explicit OperatorsOnlyCommunicator(int world_size) : world_size_(world_size) {}
  int rank() const override { return 0; }
  int world_size() const override { return world_size_; }
  void all_reduce_sum(float*, size_t) override {}

 private:
  int world_size_;
};

// The paged forward of GPU 0 on synthetic batches, every operator timed (see the header); with
// tp > 1, rank 0's shard without its all-reduces.
class CudaForwardBench {
 public:
  CudaForwardBench(const models::ModelWeights& weights, const engine::EngineConfig& ec,
                   int64_t num_blocks)
      : weights_(weights), comm_(weights.shard.world_size) {
    engine::ExecutorConfig config;
    config.backend = engine::BackendKind::cuda;
    config.quant = ec.quant;
    config.kv_dtype = ec.kv_dtype;
    config.block_size = ec.block_size;
    config.num_gpu_blocks = num_blocks;
    const models::ModelWeights* shard = &weights;
    group_ = engine::make_cuda_rank_group({&shard, 1}, config);
    engine::RankDevice& device = group_->rank(0);
    sync_ = std::make_unique<SynchronizingBackend>(device.backend());
    timing_ = std::make_unique<TimingBackend>(*sync_, weights.config);
    models::Communicator& comm = weights.shard.world_size > 1 ? comm_ : group_->communicator(0);
    model_ = std::make_unique<models::PagedModel>(device.weights(), *timing_, comm,
                                                  device.backend().memory());
    idle_sync_seconds_ = idle_sync_seconds();
  }

  ForwardTimes run(std::span<const perf::SeqWork> work, const ProfileOptions& o) {
    const models::ForwardBatch batch =
        synthetic_batch(work, group_->rank(0).kv_spec(), weights_.config.vocab_size);
    const kernels::KvCacheView kv = group_->rank(0).kv_view();
    auto once = [&] {
      timing_->reset();
      const auto start = Clock::now();
      model_->forward(batch, kv);
      return seconds_since(start);
    };
    return time_forwards(once, *timing_, idle_sync_seconds_, 0.0, o.min_repeats, o.max_repeats,
                         o.target_point_seconds);
  }

 private:
  // Median seconds of a synchronize on an idle stream (plus the clock reads around it).
  double idle_sync_seconds() {
    kernels::BackendMemory& memory = group_->rank(0).backend().memory();
    std::vector<double> seconds;  // [repeats]
    for (int i = 0; i < 201; ++i) {
      const auto start = Clock::now();
      memory.synchronize();
      seconds.push_back(seconds_since(start));
    }
    return median(seconds);
  }

  const models::ModelWeights& weights_;
  OperatorsOnlyCommunicator comm_;
  std::unique_ptr<engine::RankGroup> group_;
  std::unique_ptr<SynchronizingBackend> sync_;
  std::unique_ptr<TimingBackend> timing_;
  std::unique_ptr<models::PagedModel> model_;
  double idle_sync_seconds_ = 0.0;
};

}  // namespace

perf::Profile run_cuda_profile(const ProfileOptions& options, const ProgressFn& progress,
                               std::vector<MeasuredSeries>* measured) {
  const Clock::time_point start = Clock::now();
  engine::EngineConfig ec = options.engine;
  ec.backend = engine::BackendKind::cuda;
  engine::LoadedModel loaded = engine::load_model(options.model, options.model_seed, "--model");
  const models::ModelConfig config = loaded.weights.config;
  engine::validate(ec, config);  // InputError when tp exceeds the GPUs
  models::ModelWeights rank0 =
      ec.tp > 1 ? models::shard_weights(loaded.weights, 0, ec.tp) : loaded.weights;
  models::quantize_weights(rank0, ec.quant);

  const int64_t num_blocks = bench_num_blocks(config, rank0.shard.num_kv_heads, ec);
  CudaForwardBench bench(rank0, ec, num_blocks);
  const RunForward run = [&](std::span<const perf::SeqWork> batch) {
    return bench.run(batch, options);
  };

  perf::Profile profile =
      profile_header("tidal-cuda", engine::cuda_device_name(0), options.model, config, ec);

  // The same sweeps as the CPU profile's, one pass each.
  const OperatorSweeps sweeps = measure_operators(
      run, config, options, ec.sampling, 1, "profile (cuda)", progress, start, profile, measured);

  // The NCCL all-reduce of [tokens, hidden] fp32 over the token sweep's points, indexed as
  // perf indexes it (tokens x hidden x 2 bytes), as the CPU profile does.
  if (ec.tp > 1) {
    const std::vector<double> seconds = engine::measure_nccl_all_reduce(
        ec.tp, config.hidden_size, sweeps.tokens.tokens, options.max_repeats);
    std::vector<int64_t> bytes;  // [num_points]
    for (int64_t t : sweeps.tokens.tokens) bytes.push_back(t * config.hidden_size * 2);
    keep_series(measured, "allreduce", bytes, seconds);
    const perf::OperatorTable fitted =
        fitted_table(bytes, seconds, perf::OpScope::step, options.max_relative_fit_error);
    profile.allreduce.source = perf::TimeSource::measured;
    profile.allreduce.bytes.assign(fitted.num_tokens.begin(), fitted.num_tokens.end());
    profile.allreduce.seconds = fitted.seconds;
    progress(fmt::format("profile (cuda): NCCL all-reduce over {} GPUs at {} sizes [{:.1f} s]",
                         ec.tp, bytes.size(), seconds_since(start)));
  }

  // CPU overhead: real CUDA engine steps minus the operator time of their plans.
  engine::EngineConfig overhead_config = ec;
  overhead_config.num_gpu_blocks = num_blocks;
  const OverheadFit overhead = measure_cpu_overhead(
      profile, model_spec_for(config, options.model), cuda_device_spec(profile.provenance.device),
      loaded.weights, overhead_config, sweeps.decode.batches, options.max_relative_fit_error,
      measured);
  progress(fmt::format("profile (cuda): CPU overhead over {} engine steps, batch 1..{} [{:.1f} s]",
                       overhead.num_samples, overhead.max_num_seqs, seconds_since(start)));

  profile.provenance.source = fmt::format(
      "tidal profile --backend cuda: {} ({}) on {}, tp {}, weights {}, KV {}. Operators timed "
      "inside the paged forward on the GPU (rank 0's shard on GPU 0 when tp > 1; TimingBackend "
      "over a backend that synchronizes the stream after every operator, less the median idle "
      "synchronize), one warm-up then {}-{} "
      "repeats per point, medians; 1-D tables fitted piecewise-linear within {}%; "
      "residual adds are fused into the norms and measure 0; embedding includes the forward's "
      "time outside the operators (batch flattening, index-array uploads, the logits copy back); "
      "sampling is the engine's host sampling; cpu_overhead = CUDA engine step duration minus "
      "the tables' operator time, median per batch size over {} steps.{}",
      options.model, loaded.source, profile.provenance.device, ec.tp,
      models::quant_spec_name(ec.quant), kernels::kv_dtype_name(ec.kv_dtype), options.min_repeats,
      options.max_repeats, options.max_relative_fit_error * 100.0, overhead.num_samples,
      ec.tp > 1 ? fmt::format(" allreduce: NCCL ncclAllReduce of [tokens, hidden] fp32 over GPUs "
                              "0..{} (ncclCommInitAll, a thread per rank), {} back-to-back calls "
                              "between CUDA events on GPU 0, median of {} repeats, indexed by "
                              "tokens x hidden x 2 bytes.",
                              ec.tp - 1, engine::kAllReduceCallsPerTiming, options.max_repeats)
                : std::string());
  perf::validate_profile(profile, "profile");
  return profile;
}

}  // namespace tidal::profile
