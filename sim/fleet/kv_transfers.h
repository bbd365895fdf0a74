// KV transfers in flight between disaggregated prefill and decode replicas, sharing bandwidth
// (docs/fleet.md, "Disaggregated prefill and decode"). Each transfer crosses up to three
// resources: its sender's GPUs on its link (sender GPUs x the link's per-GPU bandwidth), its
// receiver's GPUs, and the link's whole-link cap when it has one. Rates are the max-min fair
// shares of those resources (progressive filling), recomputed whenever a transfer starts or
// ends; between two such moments every rate is constant, so finish times are exact (rounded
// up to the nanosecond). Bytes only: the link's latency is the caller's to add.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "sim/fleet/kv_links.h"

namespace tidal::fleet {

// One link's figures over a run.
struct KvLinkUsage {
  int64_t num_transfers = 0;  // finished
  double bytes = 0.0;         // of the finished transfers
  int64_t busy_ns = 0;        // time with at least one transfer moving bytes
};

class KvTransfers {
 public:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  struct Done {
    int64_t request = -1;
    int32_t link = -1;
    double bytes = 0.0;
  };

  // `links` as the scenario resolved them (gb_per_s_per_gpu > 0, gb_per_s > 0 when given).
  explicit KvTransfers(std::vector<KvLinkSpec> links);

  // Starts moving `bytes` (> 0) of `request`'s KV over `link` from replica `sender` (with
  // `sender_gpus` GPUs) to replica `receiver`, at `now_ns` (not before the previous call's).
  void start(int64_t now_ns, int64_t request, int32_t link, int32_t sender, int32_t sender_gpus,
             int32_t receiver, int32_t receiver_gpus, double bytes);
  // When the next transfer finishes, or kNever.
  int64_t next_done_ns() const;
  // The transfers finished by `now_ns`, in the order they started; the others go on sharing.
  std::vector<Done> take_done(int64_t now_ns);

  int64_t num_active() const { return static_cast<int64_t>(active_.size()); }
  const std::vector<KvLinkSpec>& links() const { return links_; }
  const std::vector<KvLinkUsage>& usage() const { return usage_; }
  // Current rate of the active transfer started `index`-th among those still active (tests).
  double rate_bytes_per_ns(size_t index) const { return active_[index].rate; }

 private:
  struct Transfer {
    int64_t request;
    int32_t link;
    int32_t sender;
    int32_t sender_gpus;
    int32_t receiver;
    int32_t receiver_gpus;
    double bytes;
    double remaining;     // bytes left at last_ns_
    double rate = 0.0;    // bytes per ns (GB/s)
    int64_t done_ns = 0;  // when its bytes are through at this rate
  };
  void advance(int64_t now_ns);  // moves every transfer's bytes up to now_ns
  void share_bandwidth();        // max-min fair rates and finish times from last_ns_

  std::vector<KvLinkSpec> links_;
  std::vector<KvLinkUsage> usage_;  // [num links]
  std::vector<Transfer> active_;    // [num transfers in flight] in start order
  int64_t last_ns_ = 0;
};

}  // namespace tidal::fleet
