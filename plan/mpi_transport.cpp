// The MPI transport (compiled only when CMake finds MPI; TIDAL_HAVE_MPI).
#include <cstdlib>

#include <fmt/format.h>
#include <mpi.h>

#include "base/input_error.h"
#include "plan/transport.h"

namespace tidal::plan {
namespace {

constexpr int kResultTag = 7;

class MpiTransport final : public Transport {
 public:
  MpiTransport() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiTransport() override { MPI_Finalize(); }
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }

  void send_to_root(const std::string& line) override {
    MPI_Send(line.data(), static_cast<int>(line.size()), MPI_CHAR, 0, kResultTag, MPI_COMM_WORLD);
  }

  std::optional<std::string> try_receive() override {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kResultTag, MPI_COMM_WORLD, &arrived, &status);
    if (!arrived) return std::nullopt;
    int length = 0;
    MPI_Get_count(&status, MPI_CHAR, &length);
    std::string line(static_cast<size_t>(length), '\0');
    MPI_Recv(line.data(), length, MPI_CHAR, status.MPI_SOURCE, kResultTag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    return line;
  }

  void abort_all() override {
    if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, 1);
  }

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

bool have_mpi() {
  return true;
}

std::unique_ptr<Transport> make_transport() {
  if (std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr) return make_local_transport();
  return std::make_unique<MpiTransport>();
}

}  // namespace tidal::plan
