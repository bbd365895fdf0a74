// The engine's backend options on any machine: --backend and --gpu-memory-utilization parsing
// and validation, and --backend cuda refused with a clear message where it cannot run (a tidal
// without the CUDA backend, or no device). The CPU path is untouched by the new options.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "base/input_error.h"
#include "engine/cuda_ranks.h"
#include "engine/engine_config.h"
#include "engine/tensor_parallel_executor.h"
#include "tests/engine/engine_test_support.h"

namespace tidal::engine {
namespace {

std::string validation_error(const EngineConfig& config) {
  try {
    validate(config, testing::tiny_config());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(BackendConfig, ParsesCudaGraphs) {
  EXPECT_TRUE(parse_cuda_graphs("", BackendKind::cuda));
  EXPECT_TRUE(parse_cuda_graphs("", BackendKind::cpu));  // not given: no effect on cpu
  EXPECT_TRUE(parse_cuda_graphs("on", BackendKind::cuda));
  EXPECT_FALSE(parse_cuda_graphs("off", BackendKind::cuda));
  try {
    parse_cuda_graphs("yes", BackendKind::cuda);
    FAIL() << "accepted 'yes'";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--cuda-graphs: unknown value 'yes' (expected on or off)");
  }
  try {
    parse_cuda_graphs("off", BackendKind::cpu);
    FAIL() << "accepted --cuda-graphs with --backend cpu";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--cuda-graphs: applies to --backend cuda only (the cpu backend has no graphs); "
              "drop it or use --backend cuda");
  }
}

TEST(BackendConfig, ParsesBackendNames) {
  EXPECT_EQ(parse_backend_kind("cpu", "--backend"), BackendKind::cpu);
  EXPECT_EQ(parse_backend_kind("cuda", "--backend"), BackendKind::cuda);
  EXPECT_STREQ(backend_kind_name(BackendKind::cuda), "cuda");
  EXPECT_STREQ(backend_kind_name(BackendKind::cpu), "cpu");
  try {
    parse_backend_kind("gpu", "--backend");
    FAIL() << "accepted 'gpu'";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--backend: unknown backend 'gpu' (expected cpu or cuda)");
  }
}

TEST(BackendConfig, GpuMemoryUtilizationMustBeInZeroOne) {
  EngineConfig config;
  EXPECT_EQ(config.gpu_memory_utilization, 0.9);
  for (double ok : {1.0, 0.5, 1e-3}) {
    config.gpu_memory_utilization = ok;
    EXPECT_EQ(validation_error(config), "") << ok;
  }
  for (double bad : {0.0, -0.1, 1.01, std::numeric_limits<double>::quiet_NaN()}) {
    config.gpu_memory_utilization = bad;
    EXPECT_EQ(validation_error(config).rfind("--gpu-memory-utilization: must be in (0, 1]", 0), 0u)
        << bad;
  }
}

TEST(BackendConfig, CudaIsRefusedClearlyWhereItCannotRun) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  EngineConfig config;
  config.backend = BackendKind::cuda;
  const std::string error = validation_error(config);
  if (cuda_backend_built()) {
    EXPECT_EQ(error.rfind("--backend: cuda: no CUDA device is present", 0), 0u) << error;
  } else {
    EXPECT_EQ(error.rfind("--backend: cuda: this tidal was built without the CUDA backend", 0), 0u)
        << error;
  }
  EXPECT_EQ(cuda_device_name(0), "");
  ExecutorConfig executor;
  executor.backend = BackendKind::cuda;
  EXPECT_THROW(TensorParallelExecutor(models::random_weights(testing::tiny_config(), 1), executor),
               InputError);
}

}  // namespace
}  // namespace tidal::engine
