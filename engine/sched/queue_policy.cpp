#include "engine/sched/queue_policy.h"

#include <algorithm>
#include <array>
#include <deque>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/sched/sched_core.h"

namespace tidal::sched {

namespace {

void require(bool condition, const char* what) {
  if (!condition) throw std::logic_error(std::string("sched::WaitingQueue: ") + what);
}

class FcfsQueue final : public WaitingQueue {
 public:
  void push(int32_t slot, const SeqState& /*st*/) override { slots_.push_back(slot); }
  void push_preempted(int32_t slot, const SeqState& /*st*/) override { slots_.push_front(slot); }
  int32_t front() const override { return slots_.front(); }
  void pop_front(const SeqState& /*st*/) override { slots_.pop_front(); }
  void erase(int32_t slot, const SeqState& /*st*/) override {
    slots_.erase(std::find(slots_.begin(), slots_.end(), slot));
  }
  int64_t size() const override { return static_cast<int64_t>(slots_.size()); }
  int32_t at(int64_t index) const override { return slots_[static_cast<size_t>(index)]; }
  void on_output_tokens(int32_t /*slot*/, int64_t /*num_tokens*/) override {}

 private:
  std::deque<int32_t> slots_;  // [num_waiting] admission order
};

class PriorityQueue final : public WaitingQueue {
 public:
  void push(int32_t slot, const SeqState& st) override { order_.insert(key(slot, st)); }
  void push_preempted(int32_t slot, const SeqState& st) override { push(slot, st); }
  int32_t front() const override { return std::get<2>(*order_.begin()); }
  void pop_front(const SeqState& /*st*/) override { order_.erase(order_.begin()); }
  void erase(int32_t slot, const SeqState& st) override { order_.erase(key(slot, st)); }
  int64_t size() const override { return static_cast<int64_t>(order_.size()); }
  int32_t at(int64_t /*index*/) const override {
    require(false, "priority order has no positional access");
    return -1;
  }
  void on_output_tokens(int32_t /*slot*/, int64_t /*num_tokens*/) override {}

 private:
  using Key = std::tuple<int32_t, int64_t, int32_t>;  // (priority, arrival_seq, slot)
  static Key key(int32_t slot, const SeqState& st) {
    return {st.request.priority.value_or(0), st.arrival_seq, slot};
  }
  std::set<Key> order_;  // [num_waiting] admission order
};

class FairShareQueue final : public WaitingQueue {
 public:
  FairShareQueue(double input_weight, double output_weight)
      : input_weight_(input_weight), output_weight_(output_weight) {}

  void push(int32_t slot, const SeqState& st) override {
    const auto [it, is_new] =
        tenant_index_.try_emplace(st.request.tenant, static_cast<int32_t>(tenants_.size()));
    if (is_new) tenants_.emplace_back();
    const int32_t t = it->second;
    if (static_cast<size_t>(slot) >= tenant_of_slot_.size()) {
      tenant_of_slot_.resize(static_cast<size_t>(slot) + 1, -1);
    }
    tenant_of_slot_[static_cast<size_t>(slot)] = t;
    Tenant& tenant = tenants_[static_cast<size_t>(t)];
    if (tenant.waiting.empty()) {
      // Becoming backlogged: no credit for the time it sent nothing.
      if (!backlogged_.empty()) {
        tenant.counter = std::max(tenant.counter, std::get<0>(*backlogged_.begin()));
      } else if (last_left_ >= 0) {
        tenant.counter =
            std::max(tenant.counter, tenants_[static_cast<size_t>(last_left_)].counter);
      }
    } else {
      backlogged_.erase(backlog_key(t));
    }
    const auto pos = std::upper_bound(tenant.waiting.begin(), tenant.waiting.end(),
                                      std::pair{st.arrival_seq, slot});
    tenant.waiting.insert(pos, {st.arrival_seq, slot});
    backlogged_.insert(backlog_key(t));
    ++num_waiting_;
  }
  void push_preempted(int32_t slot, const SeqState& st) override { push(slot, st); }

  int32_t front() const override {
    const int32_t t = std::get<2>(*backlogged_.begin());
    return tenants_[static_cast<size_t>(t)].waiting.front().second;
  }

  void pop_front(const SeqState& st) override {
    const int32_t t = std::get<2>(*backlogged_.begin());
    backlogged_.erase(backlogged_.begin());
    Tenant& tenant = tenants_[static_cast<size_t>(t)];
    tenant.waiting.pop_front();
    // A prompt is served once: a request back from a recompute preemption is not charged again.
    if (st.num_preemptions == 0) {
      tenant.counter += input_weight_ * static_cast<double>(st.num_prompt_tokens);
    }
    leave_or_requeue(t);
  }

  void erase(int32_t slot, const SeqState& st) override {
    const int32_t t = tenant_of_slot_[static_cast<size_t>(slot)];
    backlogged_.erase(backlog_key(t));
    Tenant& tenant = tenants_[static_cast<size_t>(t)];
    tenant.waiting.erase(
        std::find(tenant.waiting.begin(), tenant.waiting.end(), std::pair{st.arrival_seq, slot}));
    leave_or_requeue(t);
  }

  int64_t size() const override { return num_waiting_; }
  int32_t at(int64_t /*index*/) const override {
    require(false, "fair_share order has no positional access");
    return -1;
  }

  void on_output_tokens(int32_t slot, int64_t num_tokens) override {
    const int32_t t = tenant_of_slot_[static_cast<size_t>(slot)];
    Tenant& tenant = tenants_[static_cast<size_t>(t)];
    const bool backlogged = !tenant.waiting.empty();
    if (backlogged) backlogged_.erase(backlog_key(t));
    tenant.counter += output_weight_ * static_cast<double>(num_tokens);
    if (backlogged) backlogged_.insert(backlog_key(t));
  }

 private:
  struct Tenant {
    double counter = 0.0;                             // the virtual token counter
    std::deque<std::pair<int64_t, int32_t>> waiting;  // [its waiting] (arrival_seq, slot) sorted
  };
  // (counter, arrival_seq of its oldest waiting request, tenant): ties go to the older request.
  using BacklogKey = std::tuple<double, int64_t, int32_t>;
  BacklogKey backlog_key(int32_t t) const {
    const Tenant& tenant = tenants_[static_cast<size_t>(t)];
    return {tenant.counter, tenant.waiting.front().first, t};
  }
  // After tenant `t` lost its front request and left backlogged_: back in, or gone idle.
  void leave_or_requeue(int32_t t) {
    --num_waiting_;
    if (tenants_[static_cast<size_t>(t)].waiting.empty()) {
      last_left_ = t;
    } else {
      backlogged_.insert(backlog_key(t));
    }
  }

  double input_weight_;
  double output_weight_;
  std::unordered_map<std::string, int32_t> tenant_index_;  // tenant name -> index into tenants_
  std::vector<Tenant> tenants_;                            // [num_tenants seen]
  std::vector<int32_t> tenant_of_slot_;  // [num slots] tenant of the request in each slot
  std::set<BacklogKey> backlogged_;      // [num backlogged tenants] smallest counter first
  int32_t last_left_ = -1;               // tenant whose backlog emptied last, -1 before any
  int64_t num_waiting_ = 0;
};

struct QueueEntry {
  std::string_view name;
  std::unique_ptr<WaitingQueue> (*make)(const SchedulerConfig&);
  std::string_view victim_rule;
};

constexpr std::array<QueueEntry, 3> kQueueRegistry{{
    {"fcfs",
     [](const SchedulerConfig&) -> std::unique_ptr<WaitingQueue> {
       return std::make_unique<FcfsQueue>();
     },
     "newest"},
    {"priority",
     [](const SchedulerConfig&) -> std::unique_ptr<WaitingQueue> {
       return std::make_unique<PriorityQueue>();
     },
     "priority_then_newest"},
    {"fair_share",
     [](const SchedulerConfig& c) -> std::unique_ptr<WaitingQueue> {
       return std::make_unique<FairShareQueue>(c.fair_share_input_weight,
                                               c.fair_share_output_weight);
     },
     "newest"},
}};

constexpr std::array<std::string_view, kQueueRegistry.size()> kQueueNames{
    kQueueRegistry[0].name, kQueueRegistry[1].name, kQueueRegistry[2].name};

const QueueEntry& queue_entry(std::string_view name) {
  for (const QueueEntry& entry : kQueueRegistry) {
    if (entry.name == name) return entry;
  }
  throw std::logic_error("sched: unknown queue policy '" + std::string(name) + "'");
}

}  // namespace

std::span<const std::string_view> queue_policy_names() {
  return kQueueNames;
}

std::string_view queue_policy_victim_rule(std::string_view queue_policy) {
  return queue_entry(queue_policy).victim_rule;
}

std::unique_ptr<WaitingQueue> make_waiting_queue(const SchedulerConfig& config) {
  return queue_entry(config.queue_policy).make(config);
}

}  // namespace tidal::sched
