// Error checking for CUDA runtime, cuBLAS, cuBLASLt and NCCL calls: a failed call throws
// tidal::kernels::cuda::CudaError whose message names the call, the library's error text and
// the file:line of the call site.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace tidal::kernels::cuda {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(const char* library, const std::string& detail,
                                   const char* expression, const char* file, int line);

inline void check_cuda(cudaError_t status, const char* expression, const char* file, int line) {
  if (status != cudaSuccess) {
    throw_cuda_error("CUDA",
                     std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status),
                     expression, file, line);
  }
}

inline void check_cublas(cublasStatus_t status, const char* expression, const char* file,
                         int line) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw_cuda_error("cuBLAS", cublasGetStatusString(status), expression, file, line);
  }
}

}  // namespace tidal::kernels::cuda

#define TIDAL_CUDA_CHECK(expr) ::tidal::kernels::cuda::check_cuda((expr), #expr, __FILE__, __LINE__)
#define TIDAL_CUBLAS_CHECK(expr) \
  ::tidal::kernels::cuda::check_cublas((expr), #expr, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors surface here, at the launch site.
#define TIDAL_CUDA_CHECK_LAUNCH() TIDAL_CUDA_CHECK(cudaGetLastError())
