#include "kernels/cuda/cuda_check.h"

namespace tidal::kernels::cuda {

void throw_cuda_error(const char* library, const std::string& detail, const char* expression,
                      const char* file, int line) {
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + library + " error " +
                  detail + " in " + expression);
}

}  // namespace tidal::kernels::cuda
