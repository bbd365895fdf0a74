// How a plan's processes share work: rank r of n takes every n-th pending candidate, and the
// results travel to rank 0, which writes them. A plain `tidal plan` is one local process; under
// `mpirun` (OMPI_COMM_WORLD_SIZE set) and with MPI in the build, the ranks are MPI processes.
// MPI is initialised only in that case, so a plain run never touches it. Only the calling
// (main) thread uses a transport.
#pragma once

#include <memory>
#include <optional>
#include <string>

namespace tidal::plan {

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void barrier() = 0;
  // From a rank other than 0: hands one result line to rank 0.
  virtual void send_to_root(const std::string& line) = 0;
  // On rank 0: a line another rank sent, if one has arrived; never blocks.
  virtual std::optional<std::string> try_receive() = 0;
  // Ends every rank after an error on this one (a lone process just returns).
  virtual void abort_all() = 0;
};

// A single local process (rank 0 of 1).
std::unique_ptr<Transport> make_local_transport();
// MPI when launched by mpirun and built with MPI; else local. InputError when launched by
// mpirun with more than one rank but built without MPI.
std::unique_ptr<Transport> make_transport();
// Whether this build links MPI.
bool have_mpi();

}  // namespace tidal::plan
