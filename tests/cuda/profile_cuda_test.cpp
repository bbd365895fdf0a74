// `tidal profile --backend cuda` as a library call: a profile of the tiny preset measured on
// GPU 0 is schema-valid (validate_profile, and a save / load round trip), says it came from
// tidal-cuda on this GPU, and has positive operator times; with two GPUs a tp 2 profile has a
// measured NCCL all-reduce table; more ranks than GPUs is an InputError. Skips itself without a
// device.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/input_error.h"
#include "engine/cuda_ranks.h"
#include "engine/profile/cuda_target.h"
#include "perf/profile.h"
#include "tests/cuda/cuda_test_util.h"
#include "tests/scratch_folder.h"

namespace tidal::profile {
namespace {

ProfileOptions tiny_options() {
  ProfileOptions options;
  options.model = "tiny";
  options.engine.kv_dtype = kernels::KvDType::bf16;
  options.max_num_tokens = 64;
  options.max_batch_size = 4;
  options.max_point_seconds = 0.2;
  options.target_point_seconds = 0.005;
  options.min_repeats = 3;
  options.max_repeats = 5;
  options.max_relative_fit_error = 0.05;
  return options;
}

TEST(CudaProfile, TinyPresetGivesASchemaValidProfile) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  std::vector<MeasuredSeries> measured;
  const perf::Profile profile = run_cuda_profile(
      tiny_options(), [](const std::string&) {}, &measured);
  EXPECT_EQ(profile.provenance.backend, "tidal-cuda");
  EXPECT_EQ(profile.provenance.device, engine::cuda_device_name(0));
  EXPECT_FALSE(profile.provenance.device.empty());
  EXPECT_EQ(profile.tp, 1);
  EXPECT_NO_THROW(perf::validate_profile(profile, "profile"));
  const perf::OperatorTable& qkv = profile.operators.at(perf::OpClass::qkv_proj);
  ASSERT_FALSE(qkv.seconds.empty());
  EXPECT_GT(qkv.seconds.back(), 0.0);
  EXPECT_FALSE(profile.attention.decode_seconds.empty());
  EXPECT_FALSE(measured.empty());

  const ScratchFolder scratch("tidal_cuda_profile", "round_trip");
  const std::filesystem::path path = scratch.path() / "profile.json";
  perf::save_profile(profile, path.string());
  const perf::Profile loaded = perf::load_profile(path.string());
  EXPECT_EQ(loaded.provenance.backend, "tidal-cuda");
}

TEST(CudaProfile, MoreRanksThanGpusIsAnInputError) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  ProfileOptions options = tiny_options();
  options.engine.tp = engine::cuda_device_count() + 1;
  EXPECT_THROW(run_cuda_profile(options, [](const std::string&) {}), InputError);
}

TEST(CudaProfile, TwoGpusMeasureTheNcclAllReduce) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  if (engine::cuda_device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
  ProfileOptions options = tiny_options();
  options.engine.tp = 2;
  const perf::Profile profile = run_cuda_profile(options, [](const std::string&) {});
  EXPECT_EQ(profile.tp, 2);
  EXPECT_EQ(profile.allreduce.source, perf::TimeSource::measured);
  ASSERT_FALSE(profile.allreduce.seconds.empty());
  EXPECT_GT(profile.allreduce.seconds.front(), 0.0);
  EXPECT_NO_THROW(perf::validate_profile(profile, "profile"));
  const std::vector<int64_t> tokens{1, 64};
  const std::vector<double> seconds = engine::measure_nccl_all_reduce(2, 256, tokens, 3);
  ASSERT_EQ(seconds.size(), 2u);
  EXPECT_GT(seconds[0], 0.0);
}

TEST(CudaProfile, AllReduceNeedsTwoRanks) {
  TIDAL_SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<int64_t> tokens{1};
  EXPECT_THROW(engine::measure_nccl_all_reduce(1, 256, tokens, 3), InputError);
}

}  // namespace
}  // namespace tidal::profile
