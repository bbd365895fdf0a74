// The simulator's future-event list: a binary min-heap keyed by (time_ns, seq). Events are
// small tagged records (kind + ids); the entities they refer to (requests, replicas) live
// elsewhere. Ties at equal time pop in insertion order, so a run is a pure function of its
// inputs and seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tidal::sim {

enum class EventKind : uint8_t {
  arrival,         // request `request` reaches the router
  replica_wake,    // replica `replica` is idle and has work: plan its next step
  step_end,        // replica `replica` finishes the step it started
  deliver,         // request `request` reaches replica `replica`'s scheduler
  frontend,        // request `request` reaches replica `replica`'s front end over the network
  autoscale,       // the autoscaler of pool `request` decides
  lifecycle,       // replica `replica` moves on to state `request` (a cold-start stage ends)
  spot_notice,     // the provider warns that spot replica `replica` will be interrupted
  spot_interrupt,  // spot replica `replica` is taken back
  release,         // request `request`'s deps are done and its think time over: it arrives
  kv_transfer,     // a KV transfer between disaggregated replicas may have finished
  escalate,        // request `request`'s cascade answer reached its client: send it on
};

struct Event {
  int64_t time_ns = 0;
  uint64_t seq = 0;  // insertion order; breaks ties at equal time
  EventKind kind = EventKind::arrival;
  int32_t replica = -1;  // index into the cluster's replicas, -1 when not about a replica
  int64_t request = -1;  // index into the run's request table, -1 when not about a request
};

class EventQueue {
 public:
  void reserve(size_t num_events) { heap_.reserve(num_events); }

  // Schedules an event; returns its sequence number.
  uint64_t push(int64_t time_ns, EventKind kind, int32_t replica, int64_t request);

  // Removes and returns the earliest event (smallest time, then smallest seq). Not empty.
  Event pop();
  // pop() then push() in one sift: the earliest event is replaced by a new one. Not empty.
  uint64_t replace_top(int64_t time_ns, EventKind kind, int32_t replica, int64_t request);

  const Event& top() const { return heap_.front(); }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  uint64_t num_pushed() const { return next_seq_; }

 private:
  void sift_down(size_t i, Event moving);

  std::vector<Event> heap_;  // [size()] binary heap, earliest at index 0
  uint64_t next_seq_ = 0;
};

}  // namespace tidal::sim
