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
  // Requests are held in `num_groups` independent queues (one per model with model routing,
  // sim/model_assignment.h), so one model's held requests never hold up another's.
  explicit RouterQueue(int32_t num_ranks, int32_t num_groups = 1)
      : num_ranks_(num_ranks),
        by_rank_(static_cast<size_t>(num_ranks) * static_cast<size_t>(num_groups)),
        group_sizes_(static_cast<size_t>(num_groups), 0) {}

  void push_back(int64_t request, int32_t rank, int32_t group = 0) {
    queue(rank, group).push_back(request);
    ++group_sizes_[static_cast<size_t>(group)];
    ++size_;
  }
  void push_front(int64_t request, int32_t rank, int32_t group = 0) {
    queue(rank, group).push_front(request);
    ++group_sizes_[static_cast<size_t>(group)];
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  int64_t size() const { return size_; }
  bool empty(int32_t group) const { return size(group) == 0; }
  int64_t size(int32_t group) const { return group_sizes_[static_cast<size_t>(group)]; }
  int32_t num_ranks() const { return num_ranks_; }
  int32_t num_groups() const { return static_cast<int32_t>(group_sizes_.size()); }
  // The held requests of one rank of a group, in leaving order.
  const std::deque<int64_t>& of_rank(int32_t rank, int32_t group = 0) const {
    return by_rank_[index(rank, group)];
  }
  // The next request of a group to leave; the group is not empty.
  int64_t front(int32_t group = 0) const {
    for (int32_t rank = 0; rank < num_ranks_; ++rank) {
      const std::deque<int64_t>& q = of_rank(rank, group);
      if (!q.empty()) return q.front();
    }
    return -1;
  }
  void pop_front(int32_t group = 0) {
    for (int32_t rank = 0; rank < num_ranks_; ++rank) {
      std::deque<int64_t>& q = queue(rank, group);
      if (!q.empty()) {
        q.pop_front();
        --group_sizes_[static_cast<size_t>(group)];
        --size_;
        return;
      }
    }
  }

 private:
  size_t index(int32_t rank, int32_t group) const {
    return static_cast<size_t>(group) * static_cast<size_t>(num_ranks_) + static_cast<size_t>(rank);
  }
  std::deque<int64_t>& queue(int32_t rank, int32_t group) { return by_rank_[index(rank, group)]; }

  int32_t num_ranks_;
  std::vector<std::deque<int64_t>> by_rank_;  // [num_groups * num_ranks] FIFO per group and rank
  std::vector<int64_t> group_sizes_;          // [num_groups]
  int64_t size_ = 0;
};

}  // namespace tidal::sim
