#include "sim/timeline.h"

#include <algorithm>

#include "sim/fleet/pricing.h"

namespace tidal::sim {

void set_interval_dollars(const std::vector<int64_t>& micro_dollars_by_interval,
                          std::vector<TimelineRow>& rows) {
  fleet::MicroDollars cumulative = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const fleet::MicroDollars cost =
        i < micro_dollars_by_interval.size() ? micro_dollars_by_interval[i] : 0;
    cumulative += cost;
    rows[i].micro_dollars = cost;
    rows[i].cumulative_micro_dollars = cumulative;
    rows[i].dollars = fleet::to_dollars(cost);
    rows[i].cumulative_dollars = fleet::to_dollars(cumulative);
  }
}

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

double TimelineRecorder::Gauges::kv_usage() const {
  return total_blocks > 0 ? static_cast<double>(used_blocks) / static_cast<double>(total_blocks)
                          : 0.0;
}

void TimelineRecorder::integrate_to(int64_t t_ns) {
  if (t_ns <= gauges_since_ns_) return;
  const auto dt = static_cast<double>(t_ns - gauges_since_ns_);
  sums_.queue_depth_ns += static_cast<double>(gauges_.queue_depth) * dt;
  sums_.running_ns += static_cast<double>(gauges_.running) * dt;
  sums_.kv_usage_ns += gauges_.kv_usage() * dt;
  sums_.queued_at_router_ns += static_cast<double>(gauges_.queued_at_router) * dt;
  sums_.kv_transfers_ns += static_cast<double>(gauges_.kv_transfers) * dt;
  gauges_since_ns_ = t_ns;
}

void TimelineRecorder::note_maxima() {
  sums_.max_queue_depth = std::max(sums_.max_queue_depth, gauges_.queue_depth);
  sums_.max_running = std::max(sums_.max_running, gauges_.running);
  sums_.max_kv_usage = std::max(sums_.max_kv_usage, gauges_.kv_usage());
  sums_.max_queued_at_router = std::max(sums_.max_queued_at_router, gauges_.queued_at_router);
  sums_.max_kv_transfers = std::max(sums_.max_kv_transfers, gauges_.kv_transfers);
}

void TimelineRecorder::restart_gauges(const Gauges& end_sample, int64_t start_ns) {
  gauges_ = end_sample;
  sums_ = GaugeSums{};
  gauges_since_ns_ = start_ns;
  note_maxima();  // the value an interval starts with is one of its values
}

void TimelineRecorder::set_router_queue(int64_t n) {
  integrate_to(now_ns_);
  gauges_.queued_at_router = n;
  note_maxima();
}

void TimelineRecorder::set_kv_transfers(int64_t n) {
  integrate_to(now_ns_);
  gauges_.kv_transfers = n;
  note_maxima();
}

void TimelineRecorder::observe(const Replica& replica, int64_t step_ns) {
  integrate_to(now_ns_);
  const auto i = static_cast<size_t>(replica.index());
  if (replica_gauges_.size() <= i) replica_gauges_.resize(i + 1);
  ReplicaGauge seen;
  if (!replica.released()) {
    const sched::Scheduler& s = replica.scheduler();
    seen = ReplicaGauge{s.num_waiting() + s.num_swapped(), s.num_running(),
                        replica.block_manager().num_used_blocks(),
                        replica.block_manager().num_gpu_blocks()};
  }
  ReplicaGauge& last = replica_gauges_[i];
  gauges_.queue_depth += seen.queue_depth - last.queue_depth;
  gauges_.running += seen.running - last.running;
  gauges_.used_blocks += seen.used_blocks - last.used_blocks;
  gauges_.total_blocks += seen.total_blocks - last.total_blocks;
  last = seen;
  note_maxima();
  if (step_ns > 0 && replica.counts_work()) {
    const double gpus = cluster_.pool_of(replica.index()).deployment.num_gpus();
    const double gpu_seconds = gpus * static_cast<double>(step_ns) / 1e9;
    step_flops_ += gpus * replica.step_work().flops;
    step_bytes_ += gpus * replica.step_work().bytes;
    peak_flops_s_ += replica.peak_flops() * gpu_seconds;
    peak_bytes_s_ += replica.peak_bandwidth_Bps() * gpu_seconds;
  }
}

void TimelineRecorder::close_intervals_until(int64_t now_ns) {
  while (now_ns >= open_end_ns_) close_open(open_end_ns_);
}

void TimelineRecorder::close_open(int64_t end_ns) {
  integrate_to(end_ns);
  TimelineRow& row = open_;
  row.end_ns = end_ns;
  row.num_queued_at_router = gauges_.queued_at_router;
  Gauges end_sample;
  end_sample.queued_at_router = gauges_.queued_at_router;
  end_sample.kv_transfers = gauges_.kv_transfers;
  replica_gauges_.resize(static_cast<size_t>(cluster_.num_replicas()));
  for (int32_t i = 0; i < cluster_.num_replicas(); ++i) {
    const Replica& r = cluster_.replica(i);
    ++row.num_replicas_by_state[static_cast<size_t>(r.state)];
    ReplicaGauge& seen = replica_gauges_[static_cast<size_t>(i)];
    seen = ReplicaGauge{};
    if (r.released()) continue;
    const sched::Scheduler& s = r.scheduler();
    seen = ReplicaGauge{s.num_waiting() + s.num_swapped(), s.num_running(),
                        r.block_manager().num_used_blocks(), r.block_manager().num_gpu_blocks()};
    end_sample.queue_depth += seen.queue_depth;
    end_sample.running += seen.running;
    end_sample.used_blocks += seen.used_blocks;
    end_sample.total_blocks += seen.total_blocks;
  }
  row.queue_depth = end_sample.queue_depth;
  row.num_running = end_sample.running;
  row.kv_usage = end_sample.kv_usage();
  const int64_t length_ns = end_ns - row.start_ns;
  const auto length = static_cast<double>(length_ns);
  row.max_queue_depth = std::max(sums_.max_queue_depth, end_sample.queue_depth);
  row.max_running = std::max(sums_.max_running, end_sample.running);
  row.max_kv_usage = std::max(sums_.max_kv_usage, end_sample.kv_usage());
  row.max_queued_at_router = sums_.max_queued_at_router;
  row.mean_queue_depth = sums_.queue_depth_ns / length;
  row.mean_running = sums_.running_ns / length;
  row.mean_kv_usage = sums_.kv_usage_ns / length;
  row.mean_queued_at_router = sums_.queued_at_router_ns / length;
  row.max_kv_transfers = sums_.max_kv_transfers;
  row.mean_kv_transfers = sums_.kv_transfers_ns / length;
  if (peak_flops_s_ > 0.0) {
    row.mfu = step_flops_ / peak_flops_s_;
    row.mbu = step_bytes_ / peak_bytes_s_;
  }
  step_flops_ = step_bytes_ = peak_flops_s_ = peak_bytes_s_ = 0.0;
  restart_gauges(end_sample, end_ns);
  const int64_t busy = open_busy_ns_;
  // Capacity: replicas serving (warm or draining) at the interval's end.
  const int32_t num_serving =
      row.num_replicas_by_state[static_cast<size_t>(ReplicaState::warm)] +
      row.num_replicas_by_state[static_cast<size_t>(ReplicaState::draining)];
  const double capacity_ns = length * num_serving;
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
