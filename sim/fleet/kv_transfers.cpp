#include "sim/fleet/kv_transfers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace tidal::fleet {
namespace {

// A resource transfers share: a replica's GPUs on a link (side 0 sends, 1 receives) or the
// link's cap (side 2, replica -1).
using ResourceKey = std::tuple<int32_t, int32_t, int32_t>;  // link, side, replica

struct Resource {
  double capacity_left = 0.0;  // bytes per ns not yet given out
  int32_t num_unfrozen = 0;    // transfers using it whose rate is not fixed yet
};

}  // namespace

KvTransfers::KvTransfers(std::vector<KvLinkSpec> links)
    : links_(std::move(links)), usage_(links_.size()) {}

void KvTransfers::start(int64_t now_ns, int64_t request, int32_t link, int32_t sender,
                        int32_t sender_gpus, int32_t receiver, int32_t receiver_gpus,
                        double bytes) {
  if (now_ns < last_ns_ || !(bytes > 0.0) || link < 0 ||
      static_cast<size_t>(link) >= links_.size() || sender_gpus < 1 || receiver_gpus < 1) {
    throw std::logic_error("KvTransfers::start: bad transfer");
  }
  advance(now_ns);
  active_.push_back(
      Transfer{request, link, sender, sender_gpus, receiver, receiver_gpus, bytes, bytes});
  share_bandwidth();
}

int64_t KvTransfers::next_done_ns() const {
  int64_t next = kNever;
  for (const Transfer& t : active_) next = std::min(next, t.done_ns);
  return next;
}

std::vector<KvTransfers::Done> KvTransfers::take_done(int64_t now_ns) {
  std::vector<Done> done;
  if (now_ns < next_done_ns()) return done;
  advance(now_ns);
  std::erase_if(active_, [&](const Transfer& t) {
    if (t.done_ns > now_ns) return false;
    done.push_back(Done{t.request, t.link, t.bytes});
    KvLinkUsage& usage = usage_[static_cast<size_t>(t.link)];
    ++usage.num_transfers;
    usage.bytes += t.bytes;
    return true;
  });
  share_bandwidth();
  return done;
}

void KvTransfers::advance(int64_t now_ns) {
  const int64_t elapsed = now_ns - last_ns_;
  if (elapsed > 0) {
    std::vector<char> link_busy(links_.size(), 0);  // [num links]
    for (Transfer& t : active_) {
      t.remaining = std::max(0.0, t.remaining - t.rate * static_cast<double>(elapsed));
      link_busy[static_cast<size_t>(t.link)] = 1;
    }
    for (size_t l = 0; l < links_.size(); ++l) {
      if (link_busy[l]) usage_[l].busy_ns += elapsed;
    }
  }
  last_ns_ = std::max(last_ns_, now_ns);
}

void KvTransfers::share_bandwidth() {
  // Progressive filling: the resource with the smallest fair share fixes the rates of its
  // transfers; repeat with what the others have left.
  std::map<ResourceKey, Resource> resources;
  std::vector<std::vector<ResourceKey>> uses(active_.size());  // [num active] resources used
  for (size_t i = 0; i < active_.size(); ++i) {
    const Transfer& t = active_[i];
    const KvLinkSpec& link = links_[static_cast<size_t>(t.link)];
    uses[i].push_back({t.link, 0, t.sender});
    resources[uses[i].back()].capacity_left = link.gb_per_s_per_gpu * t.sender_gpus;
    uses[i].push_back({t.link, 1, t.receiver});
    resources[uses[i].back()].capacity_left = link.gb_per_s_per_gpu * t.receiver_gpus;
    if (link.gb_per_s) {
      uses[i].push_back({t.link, 2, -1});
      resources[uses[i].back()].capacity_left = *link.gb_per_s;
    }
  }
  for (const auto& keys : uses) {
    for (const ResourceKey& key : keys) ++resources[key].num_unfrozen;
  }
  std::vector<char> frozen(active_.size(), 0);  // [num active]
  for (size_t num_frozen = 0; num_frozen < active_.size();) {
    const ResourceKey* tightest = nullptr;
    double share = 0.0;
    for (const auto& [key, resource] : resources) {
      if (resource.num_unfrozen == 0) continue;
      const double s = resource.capacity_left / resource.num_unfrozen;
      if (tightest == nullptr || s < share) {
        tightest = &key;
        share = s;
      }
    }
    const ResourceKey bottleneck = *tightest;
    for (size_t i = 0; i < active_.size(); ++i) {
      if (frozen[i]) continue;
      bool crosses = false;
      for (const ResourceKey& key : uses[i]) crosses = crosses || key == bottleneck;
      if (!crosses) continue;
      frozen[i] = 1;
      ++num_frozen;
      active_[i].rate = std::max(share, 0.0);
      for (const ResourceKey& key : uses[i]) {
        Resource& r = resources[key];
        r.capacity_left -= share;
        --r.num_unfrozen;
      }
    }
  }
  for (Transfer& t : active_) {
    // Rates are positive: every capacity is, and a share is a capacity split n ways.
    // Clamped far past the simulated-time limit, which the event loop enforces.
    const double ns = std::min(std::ceil(t.remaining / t.rate), 4e18);
    t.done_ns = last_ns_ + static_cast<int64_t>(ns);
  }
}

}  // namespace tidal::fleet
