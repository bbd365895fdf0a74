// make_transport() of builds without MPI (CMake found none).
#include <cstdlib>
#include <string>

#include "base/input_error.h"
#include "plan/transport.h"

namespace tidal::plan {

bool have_mpi() {
  return false;
}

std::unique_ptr<Transport> make_transport() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (size != nullptr && std::string(size) != "1") {
    throw InputError(
        "tidal plan: launched by mpirun with several ranks, but this build has no MPI "
        "(install libopenmpi-dev and rebuild)");
  }
  return make_local_transport();
}

}  // namespace tidal::plan
