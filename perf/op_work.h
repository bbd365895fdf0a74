// The work of one operator on one GPU, as the roofline rule prices it.
#pragma once

namespace tidal::perf {

struct OpWork {
  double flops = 0.0;
  double bytes = 0.0;

  OpWork& operator+=(const OpWork& other) {
    flops += other.flops;
    bytes += other.bytes;
    return *this;
  }
};

}  // namespace tidal::perf
