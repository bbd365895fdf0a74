#include "plan/transport.h"

namespace tidal::plan {
namespace {

class LocalTransport final : public Transport {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void barrier() override {}
  void send_to_root(const std::string&) override {}
  std::optional<std::string> try_receive() override { return std::nullopt; }
  void abort_all() override {}
};

}  // namespace

std::unique_ptr<Transport> make_local_transport() {
  return std::make_unique<LocalTransport>();
}

}  // namespace tidal::plan
