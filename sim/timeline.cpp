#include "sim/timeline.h"

#include <algorithm>

namespace tidal::sim {

TimelineRecorder::TimelineRecorder(int64_t interval_ns, const Cluster& cluster)
    : cluster_(cluster), interval_ns_(interval_ns), open_end_ns_(interval_ns) {
  open_.start_ns = 0;
}

void TimelineRecorder::add_busy(int64_t start_ns, int64_t end_ns) {
  // Common case: the step lies inside the open interval.
  if (end_ns <= open_end_ns_) {
    open_busy_ns_ += end_ns - start_ns;
    return;
  }
  open_busy_ns_ += open_end_ns_ - start_ns;
  start_ns = open_end_ns_;
  while (start_ns < end_ns) {  // later intervals
    const auto later = static_cast<size_t>((start_ns - open_end_ns_) / interval_ns_);
    const int64_t boundary = open_end_ns_ + (static_cast<int64_t>(later) + 1) * interval_ns_;
    const int64_t piece_end = std::min(end_ns, boundary);
    if (future_busy_ns_.size() <= later) future_busy_ns_.resize(later + 1, 0);
    future_busy_ns_[later] += piece_end - start_ns;
    start_ns = piece_end;
  }
}

void TimelineRecorder::close_intervals_until(int64_t now_ns) {
  while (now_ns >= open_end_ns_) close_open(open_end_ns_);
}

void TimelineRecorder::close_open(int64_t end_ns) {
  TimelineRow& row = open_;
  row.end_ns = end_ns;
  row.num_queued_at_router = num_queued_at_router_;
  int64_t num_used_blocks = 0;
  int64_t num_total_blocks = 0;
  for (int32_t i = 0; i < cluster_.num_replicas(); ++i) {
    const Replica& r = cluster_.replica(i);
    ++row.num_replicas_by_state[static_cast<size_t>(r.state)];
    if (r.released()) continue;
    const sched::Scheduler& s = r.scheduler();
    row.queue_depth += s.num_waiting() + s.num_swapped();
    row.num_running += s.num_running();
    num_used_blocks += r.block_manager().num_used_blocks();
    num_total_blocks += r.block_manager().num_gpu_blocks();
  }
  const int64_t length_ns = end_ns - row.start_ns;
  row.kv_usage = num_total_blocks > 0
                     ? static_cast<double>(num_used_blocks) / static_cast<double>(num_total_blocks)
                     : 0.0;
  const int64_t busy = open_busy_ns_;
  // Capacity: replicas serving (warm or draining) at the interval's end.
  const int32_t num_serving =
      row.num_replicas_by_state[static_cast<size_t>(ReplicaState::warm)] +
      row.num_replicas_by_state[static_cast<size_t>(ReplicaState::draining)];
  const double capacity_ns = static_cast<double>(length_ns) * num_serving;
  row.utilization = capacity_ns > 0 ? static_cast<double>(busy) / capacity_ns : 0.0;
  rows_.push_back(row);
  open_ = TimelineRow{};
  open_.start_ns = end_ns;
  open_end_ns_ = end_ns + interval_ns_;
  // The next interval's busy time so far was booked ahead.
  if (future_busy_ns_.empty()) {
    open_busy_ns_ = 0;
  } else {
    open_busy_ns_ = future_busy_ns_.front();
    future_busy_ns_.erase(future_busy_ns_.begin());
  }
}

std::vector<TimelineRow> TimelineRecorder::finish(int64_t end_ns) {
  close_intervals_until(end_ns);
  if (end_ns > open_.start_ns) close_open(end_ns);
  return std::move(rows_);
}

}  // namespace tidal::sim
