// Collective operations between tensor-parallel ranks. The forward pass of a rank calls
// all_reduce_sum after the row-parallel O and down projections (twice per layer); every rank
// must make the same calls in the same order.
#pragma once

#include <cstddef>

namespace tidal::models {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // buf[i] = sum over ranks of buf[i]; every rank ends with identical bytes.
  virtual void all_reduce_sum(float* buf, size_t count) = 0;  // buf: [count]
};

// world_size 1: nothing to reduce.
class SingleRankCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  void all_reduce_sum(float*, size_t) override {}
};

}  // namespace tidal::models
