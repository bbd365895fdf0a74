#include "kernels/cuda/blas_gemm.h"

#include <memory>

#include "kernels/cuda/cuda_check.h"

namespace tidal::kernels::cuda {

namespace {

int as_int(int64_t value) {
  return static_cast<int>(value);
}

// Owners that destroy cuBLASLt descriptors on every path out of gemm_fp8.
struct MatmulDescDeleter {
  void operator()(cublasLtMatmulDescOpaque_t* desc) const { cublasLtMatmulDescDestroy(desc); }
};
struct LayoutDeleter {
  void operator()(cublasLtMatrixLayoutOpaque_t* layout) const {
    cublasLtMatrixLayoutDestroy(layout);
  }
};
struct PreferenceDeleter {
  void operator()(cublasLtMatmulPreferenceOpaque_t* pref) const {
    cublasLtMatmulPreferenceDestroy(pref);
  }
};
using MatmulDesc = std::unique_ptr<cublasLtMatmulDescOpaque_t, MatmulDescDeleter>;
using Layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, LayoutDeleter>;
using Preference = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, PreferenceDeleter>;

Layout make_layout(cudaDataType_t type, int64_t rows, int64_t cols, int64_t ld) {
  cublasLtMatrixLayout_t layout = nullptr;
  TIDAL_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout, type, static_cast<uint64_t>(rows),
                                                static_cast<uint64_t>(cols), ld));
  return Layout(layout);
}

}  // namespace

void gemm_f32(cublasHandle_t handle, const float* x, int64_t num_tokens, const float* weight,
              int64_t rows, int64_t cols, float* y) {
  const float alpha = 1.0f;
  const float beta = 0.0f;
  TIDAL_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, as_int(rows),
                                  as_int(num_tokens), as_int(cols), &alpha, weight, CUDA_R_32F,
                                  as_int(cols), x, CUDA_R_32F, as_int(cols), &beta, y, CUDA_R_32F,
                                  as_int(rows), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void gemm_half(cublasHandle_t handle, const uint16_t* x, int64_t num_tokens, const uint16_t* weight,
               HalfType type, int64_t rows, int64_t cols, float* y) {
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const cudaDataType_t input_type = type == HalfType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
  TIDAL_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, as_int(rows),
                                  as_int(num_tokens), as_int(cols), &alpha, weight, input_type,
                                  as_int(cols), x, input_type, as_int(cols), &beta, y, CUDA_R_32F,
                                  as_int(rows), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void gemm_fp8(cublasLtHandle_t handle, const uint8_t* x_codes, int64_t num_tokens,
              const uint8_t* weight_codes, int64_t rows, int64_t cols, float* y, void* workspace,
              size_t workspace_bytes, cudaStream_t stream) {
  cublasLtMatmulDesc_t raw_desc = nullptr;
  TIDAL_CUBLAS_CHECK(cublasLtMatmulDescCreate(&raw_desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const MatmulDesc desc(raw_desc);
  const cublasOperation_t transpose = CUBLAS_OP_T;
  const cublasOperation_t no_transpose = CUBLAS_OP_N;
  TIDAL_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.get(), CUBLASLT_MATMUL_DESC_TRANSA,
                                                    &transpose, sizeof(transpose)));
  TIDAL_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc.get(), CUBLASLT_MATMUL_DESC_TRANSB,
                                                    &no_transpose, sizeof(no_transpose)));
  // A: W stored [cols, rows] column-major; B: x stored [cols, num_tokens]; D: y [rows, num_tokens].
  const Layout a = make_layout(CUDA_R_8F_E4M3, cols, rows, cols);
  const Layout b = make_layout(CUDA_R_8F_E4M3, cols, num_tokens, cols);
  const Layout d = make_layout(CUDA_R_32F, rows, num_tokens, rows);

  cublasLtMatmulPreference_t raw_pref = nullptr;
  TIDAL_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&raw_pref));
  const Preference pref(raw_pref);
  TIDAL_CUBLAS_CHECK(
      cublasLtMatmulPreferenceSetAttribute(pref.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                           &workspace_bytes, sizeof(workspace_bytes)));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int num_results = 0;
  TIDAL_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(handle, desc.get(), a.get(), b.get(), d.get(),
                                                    d.get(), pref.get(), 1, &heuristic,
                                                    &num_results));
  if (num_results == 0) {
    throw CudaError("cuBLASLt has no fp8 e4m3 matmul algorithm for rows " + std::to_string(rows) +
                    ", cols " + std::to_string(cols) + ", tokens " + std::to_string(num_tokens));
  }
  const float alpha = 1.0f;
  const float beta = 0.0f;
  TIDAL_CUBLAS_CHECK(cublasLtMatmul(handle, desc.get(), &alpha, weight_codes, a.get(), x_codes,
                                    b.get(), &beta, y, d.get(), y, d.get(), &heuristic.algo,
                                    workspace, workspace_bytes, stream));
}

}  // namespace tidal::kernels::cuda
