// Requests held at the router: none of the replicas can take them (none warm yet, or all at
// their pool's max_inputs). They leave by class priority (RouterSpec::class_priority: listed
// classes first, in list order, the rest after), first in first out within a class; a request
// a spot interruption sends back goes to the front of its class.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

namespace tidal::sim {

class RouterQueue {
 public:
  explicit RouterQueue(int32_t num_ranks) : by_rank_(static_cast<size_t>(num_ranks)) {}

  void push_back(int64_t request, int32_t rank) {
    by_rank_[static_cast<size_t>(rank)].push_back(request);
    ++size_;
  }
  void push_front(int64_t request, int32_t rank) {
    by_rank_[static_cast<size_t>(rank)].push_front(request);
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  int64_t size() const { return size_; }
  int32_t num_ranks() const { return static_cast<int32_t>(by_rank_.size()); }
  // The held requests of one rank, in leaving order.
  const std::deque<int64_t>& of_rank(int32_t rank) const {
    return by_rank_[static_cast<size_t>(rank)];
  }
  // The next request to leave; not empty.
  int64_t front() const {
    for (const std::deque<int64_t>& q : by_rank_) {
      if (!q.empty()) return q.front();
    }
    return -1;
  }
  void pop_front() {
    for (std::deque<int64_t>& q : by_rank_) {
      if (!q.empty()) {
        q.pop_front();
        --size_;
        return;
      }
    }
  }

 private:
  std::vector<std::deque<int64_t>> by_rank_;  // [num_ranks] FIFO per priority rank
  int64_t size_ = 0;
};

}  // namespace tidal::sim
