#include "sim/event_queue.h"

#include <cassert>

namespace tidal::sim {
namespace {

bool earlier(const Event& a, const Event& b) {
  return a.time_ns < b.time_ns || (a.time_ns == b.time_ns && a.seq < b.seq);
}

}  // namespace

uint64_t EventQueue::push(int64_t time_ns, EventKind kind, int32_t replica, int64_t request) {
  const uint64_t seq = next_seq_++;
  heap_.push_back(Event{time_ns, seq, kind, replica, request});
  // Sift up.
  size_t i = heap_.size() - 1;
  const Event moving = heap_[i];
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!earlier(moving, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = moving;
  return seq;
}

Event EventQueue::pop() {
  assert(!heap_.empty());
  const Event result = heap_.front();
  const Event moving = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0, moving);
  return result;
}

uint64_t EventQueue::replace_top(int64_t time_ns, EventKind kind, int32_t replica,
                                 int64_t request) {
  assert(!heap_.empty());
  const uint64_t seq = next_seq_++;
  sift_down(0, Event{time_ns, seq, kind, replica, request});
  return seq;
}

// Moves `moving` down from the hole at index i to where it keeps the heap order.
void EventQueue::sift_down(size_t i, Event moving) {
  const size_t n = heap_.size();
  while (true) {
    const size_t left = 2 * i + 1;
    if (left >= n) break;
    const size_t right = left + 1;
    const size_t child = (right < n && earlier(heap_[right], heap_[left])) ? right : left;
    if (!earlier(heap_[child], moving)) break;
    heap_[i] = heap_[child];
    i = child;
  }
  heap_[i] = moving;
}

}  // namespace tidal::sim
