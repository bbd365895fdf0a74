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
  const size_t n = heap_.size();
  if (n == 0) return result;
  // Sift the former last element down from the root.
  size_t i = 0;
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
  return result;
}

}  // namespace tidal::sim
