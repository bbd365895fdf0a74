#include "engine/trace_replay.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "base/input_error.h"
#include "base/limits.h"
#include "engine/prompt_tokens.h"

namespace tidal::engine {

namespace {

constexpr int64_t kStopPollNs = 50'000'000;  // longest wait before a stop request is seen

// InputError naming --length-scale when the scaled length passes base::kMaxTokens.
int64_t scale_length(int64_t tokens, double scale, int64_t request_id) {
  if (scale == 1.0) return tokens;
  const double scaled = static_cast<double>(tokens) * scale;
  if (scaled > static_cast<double>(base::kMaxTokens)) {
    throw InputError(fmt::format(
        "--length-scale: request {} would have {:g} tokens, beyond the limit of {} per request",
        request_id, scaled, base::kMaxTokens));
  }
  return std::max<int64_t>(1, std::llround(scaled));
}

void check_scale(double scale, const char* option) {
  if (!std::isfinite(scale) || scale < 0.0) {
    throw InputError(std::string(option) + ": must be a finite number >= 0 (got " +
                     std::to_string(scale) + ")");
  }
}

// The replay's bookkeeping: arrival order, dependencies and per-request records.
class Replay {
 public:
  Replay(Engine& engine, std::vector<Request> requests, const ReplayOptions& options, Clock& clock);
  EngineRun run();

 private:
  using Arrival = std::pair<int64_t, size_t>;  // (arrival ns, index)

  void arrive(size_t index, int64_t now_ns);
  void reject(size_t index, int64_t now_ns, std::string reason);
  void finish(size_t index, int64_t now_ns);
  void release_dependents(size_t index, int64_t now_ns);
  void apply(const StepRecord& step);
  bool stop_requested() const {
    return options_.stop_signal != nullptr && options_.stop_signal->load() != 0;
  }
  std::string stall_message() const;

  Engine& engine_;
  const ReplayOptions& options_;
  Clock& clock_;
  EngineRun run_;
  std::map<int64_t, size_t> index_of_id_;
  std::vector<std::vector<size_t>> dependents_;  // [requests] indices waiting on each
  std::vector<int64_t> num_pending_deps_;        // [requests]
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<Arrival>> arrivals_;
  int64_t num_done_ = 0;
};

Replay::Replay(Engine& engine, std::vector<Request> requests, const ReplayOptions& options,
               Clock& clock)
    : engine_(engine), options_(options), clock_(clock) {
  run_.requests = std::move(requests);
  const size_t n = run_.requests.size();
  run_.records.resize(n);
  dependents_.resize(n);
  num_pending_deps_.assign(n, 0);
  std::vector<std::string> problems(n);  // [n] why a request cannot run, found up front
  for (size_t i = 0; i < n; ++i) {
    const Request& r = run_.requests[i];
    run_.records[i].arrival_ns = std::llround(r.arrival_s * 1e9);
    if (!index_of_id_.emplace(r.id, i).second) problems[i] = "duplicate_id";
  }
  for (size_t i = 0; i < n; ++i) {
    for (int64_t dep : run_.requests[i].deps) {
      const auto it = index_of_id_.find(dep);
      if (it == index_of_id_.end()) {
        if (problems[i].empty())
          problems[i] = "dependency " + std::to_string(dep) + " is not replayed";
        continue;
      }
      dependents_[it->second].push_back(i);
      ++num_pending_deps_[i];
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (!problems[i].empty()) {
      reject(i, run_.records[i].arrival_ns, problems[i]);
    } else if (num_pending_deps_[i] == 0) {
      arrivals_.emplace(run_.records[i].arrival_ns, i);
    }
  }
}

void Replay::reject(size_t index, int64_t now_ns, std::string reason) {
  RequestRecord& rec = run_.records[index];
  if (rec.status != RequestStatus::pending) return;
  rec.status = RequestStatus::rejected;
  rec.reason = std::move(reason);
  rec.rejected_ns = std::max(now_ns, rec.arrival_ns);
  ++num_done_;
  run_.end_ns = std::max(run_.end_ns, rec.rejected_ns);
  for (size_t d : dependents_[index]) {
    reject(d, now_ns, std::string(kDependencyRejected));
  }
}

void Replay::finish(size_t index, int64_t now_ns) {
  RequestRecord& rec = run_.records[index];
  rec.status = RequestStatus::finished;
  rec.finish_ns = now_ns;
  ++num_done_;
  run_.end_ns = std::max(run_.end_ns, now_ns);
  release_dependents(index, now_ns);
}

void Replay::release_dependents(size_t index, int64_t now_ns) {
  for (size_t d : dependents_[index]) {
    if (--num_pending_deps_[d] > 0 || run_.records[d].status != RequestStatus::pending) continue;
    RequestRecord& rec = run_.records[d];
    // A closed-loop client thinks for think_time_s after the answer before sending the next.
    const int64_t think_ns = std::llround(run_.requests[d].think_time_s * 1e9);
    rec.arrival_ns = std::max(rec.arrival_ns, now_ns + think_ns);
    arrivals_.emplace(rec.arrival_ns, d);
  }
}

void Replay::arrive(size_t index, int64_t now_ns) {
  const Request& request = run_.requests[index];
  run_.records[index].replica = 0;
  // Refused before its prompt is synthesized: a trace may ask for 1e11 tokens.
  if (request.prompt_tokens + request.output_tokens > engine_.scheduler().config().max_model_len) {
    reject(index, now_ns,
           std::string(sched::reject_reason_name(sched::RejectReason::exceeds_max_model_len)));
    return;
  }
  const sched::RejectReason reason = engine_.add_request(
      request, synthesize_prompt(request, engine_.model_config().vocab_size, options_.prompt_seed),
      now_ns);
  if (reason != sched::RejectReason::none) {
    reject(index, now_ns, std::string(sched::reject_reason_name(reason)));
  }
}

void Replay::apply(const StepRecord& step) {
  for (const sched::ScheduledSeq& seq : step.seqs) {
    if (seq.first_scheduled) {
      run_.records[index_of_id_.at(seq.request_id)].first_scheduled_ns = step.start_ns;
    }
  }
  const int64_t now = step.end_ns;
  for (const sched::RequestEvent& ev : step.events) {
    const size_t index = index_of_id_.at(ev.request_id);
    RequestRecord& rec = run_.records[index];
    rec.num_preemptions = ev.num_preemptions;
    rec.num_prefix_hit_tokens = ev.num_prefix_hit_tokens;
    if (ev.num_new_output_tokens > 0) {
      if (ev.first_token) {
        rec.first_token_ns = now;
      } else {
        const int64_t gap = now - rec.last_token_ns;
        run_.itl_s.push_back(static_cast<double>(gap) * 1e-9);
        rec.max_itl_ns = std::max(rec.max_itl_ns, gap);
      }
      for (int32_t t = 1; t < ev.num_new_output_tokens; ++t) run_.itl_s.push_back(0.0);
      rec.last_token_ns = now;
      rec.num_output_tokens_done += ev.num_new_output_tokens;
    }
    if (ev.finished) finish(index, now);
  }
  run_.busy_ns += step.end_ns - step.start_ns;
  const sched::Scheduler& scheduler = engine_.scheduler();
  run_.states.push_back(StateSample{step.end_ns, scheduler.num_waiting() + scheduler.num_swapped(),
                                    scheduler.num_running(), scheduler.kv_usage()});
}

// Requests are refused up front when they could never run (too long, deps in a cycle), so a
// stall is a bug; the message says what was left.
std::string Replay::stall_message() const {
  size_t first = 0;
  while (run_.records[first].status != RequestStatus::pending) ++first;
  const Request& r = run_.requests[first];
  return fmt::format(
      "engine replay stalled: {} of {} requests unfinished and nothing can run; "
      "the first is request {} ({} prompt + {} output tokens, {} deps unfinished, {} running or "
      "waiting in the engine)",
      static_cast<int64_t>(run_.requests.size()) - num_done_, run_.requests.size(), r.id,
      r.prompt_tokens, r.output_tokens, num_pending_deps_[first],
      engine_.scheduler().num_running() + engine_.scheduler().num_waiting());
}

EngineRun Replay::run() {
  const int64_t wall_start_ns = clock_.now_ns();
  const auto num_requests = static_cast<int64_t>(run_.requests.size());
  StepRecord step;
  while (num_done_ < num_requests) {
    if (stop_requested()) break;
    const int64_t now = clock_.now_ns();
    while (!arrivals_.empty() && arrivals_.top().first <= now) {
      const size_t index = arrivals_.top().second;
      arrivals_.pop();
      arrive(index, now);
    }
    if (engine_.has_unfinished() && engine_.step(clock_, step)) {
      const int64_t num_done_before = num_done_;
      apply(step);
      run_.steps.push_back(std::move(step));
      if (options_.on_progress && num_done_ > num_done_before) {
        options_.on_progress(num_done_, num_requests);
      }
      continue;
    }
    int64_t deadline =
        engine_.has_unfinished() ? engine_.next_wakeup_ns() : sched::Scheduler::kNoWakeup;
    if (!arrivals_.empty()) deadline = std::min(deadline, arrivals_.top().first);
    if (deadline == sched::Scheduler::kNoWakeup) {
      if (num_done_ == num_requests) break;  // the last arrivals were rejected on arrival
      throw std::logic_error(stall_message());
    }
    // Waits in slices while a stop may come, so that it is seen promptly.
    if (options_.stop_signal) deadline = std::min(deadline, clock_.now_ns() + kStopPollNs);
    clock_.sleep_until(deadline);
  }
  if (num_done_ < num_requests) run_.stop_signal = options_.stop_signal->load();  // stopped
  if (run_.stop_signal != 0 && !run_.steps.empty()) {
    run_.end_ns = std::max(run_.end_ns, run_.steps.back().end_ns);  // a partial run ends here
  }
  run_.wall_s = static_cast<double>(clock_.now_ns() - wall_start_ns) * 1e-9;
  return std::move(run_);
}

}  // namespace

std::vector<Request> prepare_requests(std::vector<Request> requests, const ReplayOptions& options) {
  check_scale(options.time_scale, "--time-scale");
  check_scale(options.length_scale, "--length-scale");
  if (options.length_scale == 0.0) throw InputError("--length-scale: must be > 0");
  if (options.max_requests < 0) throw InputError("--max-requests: must not be negative");
  for (Request& r : requests) {
    r.arrival_s *= options.time_scale;
    if (!(r.arrival_s <= kMaxReplayArrivalS)) {
      throw InputError(fmt::format(
          "--time-scale: request {} arrives at {:g} s after scaling by {:g}; a real-time replay "
          "waits at most {:g} s for an arrival (--time-scale 0 sends every request at once)",
          r.id, r.arrival_s, options.time_scale, kMaxReplayArrivalS));
    }
    r.prompt_tokens = scale_length(r.prompt_tokens, options.length_scale, r.id);
    r.output_tokens = scale_length(r.output_tokens, options.length_scale, r.id);
    if (options.length_scale != 1.0 && r.prefix_block_tokens > 0) {
      const auto num_covered = static_cast<size_t>((r.prompt_tokens + r.prefix_block_tokens - 1) /
                                                   r.prefix_block_tokens);
      if (r.prefix_blocks.size() > num_covered) r.prefix_blocks.resize(num_covered);
    }
  }
  std::stable_sort(requests.begin(), requests.end(),
                   [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
  if (options.max_requests > 0 && static_cast<int64_t>(requests.size()) > options.max_requests) {
    requests.resize(static_cast<size_t>(options.max_requests));
  }
  return requests;
}

EngineRun replay(Engine& engine, std::vector<Request> requests, const ReplayOptions& options,
                 Clock& clock) {
  return Replay(engine, std::move(requests), options, clock).run();
}

}  // namespace tidal::engine
