#include "plan/plan_runner.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "base/input_error.h"
#include "base/number_format.h"
#include "plan/plan_setup.h"
#include "plan/plan_table.h"
#include "plan/results_file.h"
#include "plan/transport.h"

namespace tidal::plan {
namespace {

// Results handed from worker threads to the main thread.
class ResultQueue {
 public:
  void push(CandidateResult r) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(r));
    }
    ready_.notify_one();
  }
  void fail(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = e;
    }
    ready_.notify_one();
  }
  // Waits up to `timeout` for results; returns those queued. Rethrows a worker's exception.
  std::deque<CandidateResult> take(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait_for(lock, timeout, [&] { return !queue_.empty() || error_; });
    if (error_) std::rethrow_exception(error_);
    std::deque<CandidateResult> out;
    out.swap(queue_);
    return out;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<CandidateResult> queue_;
  std::exception_ptr error_;
};

// A result as it reads back from results.jsonl, so fresh and resumed results are identical.
CandidateResult normalized(const std::string& line) {
  return result_from_json(nlohmann::ordered_json::parse(line), "result");
}

class Progress {
 public:
  Progress(bool enabled, int64_t total, int64_t done)
      : enabled_(enabled && isatty(fileno(stderr)) != 0), total_(total), done_(done) {}
  void add() {
    ++done_;
    if (enabled_)
      std::fprintf(stderr, "\rplan: %lld/%lld candidates", static_cast<long long>(done_),
                   static_cast<long long>(total_));
  }
  ~Progress() {
    if (enabled_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool enabled_;
  int64_t total_;
  int64_t done_;
};

std::string default_out_dir(const sim::Scenario& base) {
  return "out/plan-" + base.name;
}

// The evaluation of `mine` on `num_threads` workers; the main thread forwards every result
// (rank 0: to `on_result`; other ranks: to rank 0) and on rank 0 also receives the other ranks'
// `num_remote` results.
void evaluate_all(const PlanContext& context, const std::vector<const Candidate*>& mine,
                  int num_threads, int64_t num_remote, Transport& transport,
                  const std::function<void(const std::string&)>& on_result) {
  ResultQueue queue;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> workers;
  const int num_workers = std::max(1, std::min<int>(num_threads, static_cast<int>(mine.size())));
  for (int w = 0; w < num_workers && !mine.empty(); ++w) {
    workers.emplace_back([&] {
      try {
        for (size_t i = next++; i < mine.size() && !stop; i = next++) {
          queue.push(evaluate_candidate(context, *mine[i]));
        }
      } catch (...) {
        queue.fail(std::current_exception());
      }
    });
  }
  const bool root = transport.rank() == 0;
  size_t num_local = 0;
  int64_t num_received = 0;
  try {
    while (num_local < mine.size() || (root && num_received < num_remote)) {
      for (CandidateResult& r : queue.take(std::chrono::milliseconds(5))) {
        const std::string line = result_to_json(r, context.fingerprint).dump();
        if (root) {
          on_result(line);
        } else {
          transport.send_to_root(line);
        }
        ++num_local;
      }
      while (root && num_received < num_remote) {
        const std::optional<std::string> line = transport.try_receive();
        if (!line) break;
        on_result(*line);
        ++num_received;
      }
    }
  } catch (...) {
    stop = true;
    for (std::thread& t : workers) t.join();
    throw;
  }
  for (std::thread& t : workers) t.join();
}

PlanRun run_on(Transport& transport, const PlanOptions& options) {
  PlanInputs in = load_plan_inputs(options);
  const PlanContext& context = in.context;
  // The trace must load; reading it here turns a bad workload into one error, not a column
  // of invalid candidates.
  context.tables->get(
      context.mode == PlanMode::cost ? 1.0 : context.space.capacity.min_rate_scale,
      context.mode == PlanMode::cost
          ? in.base
          : sim::parse_scenario(
                candidate_scenario_json(context, Candidate{0, nlohmann::ordered_json::object()},
                                        context.space.capacity.min_rate_scale),
                context.scenario_file, context.scenario_dir));

  PlanRun run;
  run.is_root = transport.rank() == 0;
  run.num_ranks = transport.size();
  run.num_threads = options.num_threads > 0
                        ? options.num_threads
                        : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  run.out_dir = options.out_dir.empty() ? default_out_dir(in.base) : options.out_dir;
  const std::filesystem::path results_path = std::filesystem::path(run.out_dir) / "results.jsonl";
  if (run.is_root) {
    std::error_code ec;
    std::filesystem::create_directories(run.out_dir, ec);
    if (ec || !std::filesystem::is_directory(run.out_dir)) {
      throw InputError(fmt::format("{}: cannot create output folder", run.out_dir));
    }
  }
  transport.barrier();
  std::map<std::string, CandidateResult> results =
      read_results(results_path.string(), context.fingerprint);
  transport.barrier();  // every rank has read the file before rank 0 appends to it

  std::vector<const Candidate*> pending;
  for (size_t i = 0; i < in.candidates.size(); ++i) {
    if (results.count(in.ids[i]) == 0) pending.push_back(&in.candidates[i]);
  }
  run.num_resumed = static_cast<int64_t>(in.candidates.size() - pending.size());
  run.num_evaluated = static_cast<int64_t>(pending.size());
  std::vector<const Candidate*> mine;  // round-robin share of this rank
  for (size_t k = static_cast<size_t>(transport.rank()); k < pending.size();
       k += static_cast<size_t>(transport.size())) {
    mine.push_back(pending[k]);
  }
  const int64_t num_remote = static_cast<int64_t>(pending.size() - mine.size());

  std::unique_ptr<ResultsWriter> writer;
  if (run.is_root)
    writer = std::make_unique<ResultsWriter>(results_path.string(), context.fingerprint);
  {
    Progress progress(options.progress && run.is_root, static_cast<int64_t>(in.candidates.size()),
                      run.num_resumed);
    evaluate_all(context, mine, run.num_threads, num_remote, transport,
                 [&](const std::string& line) {
                   CandidateResult r = normalized(line);
                   writer->append(r);
                   results.insert_or_assign(r.id, std::move(r));
                   progress.add();
                 });
  }
  transport.barrier();
  if (!run.is_root) return run;

  std::vector<CandidateResult> ordered;
  for (size_t i = 0; i < in.candidates.size(); ++i) {
    CandidateResult r = results.at(in.ids[i]);
    r.index = in.candidates[i].index;
    r.config = in.candidates[i].config;
    ordered.push_back(std::move(r));
  }
  run.header.scenario = in.base.name;
  run.header.mode = context.mode;
  for (const SloTarget& t : context.slo) run.header.slo.push_back(t.text);
  for (const sim::SloClass& c : in.base.slo_classes) {
    std::string bounds;
    auto add = [&](const char* name, const std::optional<double>& v) {
      if (v)
        bounds +=
            fmt::format("{}{} <= {}", bounds.empty() ? "" : ", ", name, base::format_latency(*v));
    };
    add("TTFT", c.slo.ttft_s);
    add("TPOT", c.slo.tpot_s);
    add("E2E", c.slo.e2e_s);
    run.header.class_slos.push_back(c.name + ": " + (bounds.empty() ? "no bounds" : bounds));
  }
  for (const Dimension& d : context.space.dimensions) run.header.dimensions.push_back(d.key);
  run.header.pool = context.space.pool_name;
  run.header.fingerprint = context.fingerprint;
  run.outcome = conclude(std::move(ordered), context.mode, options.latency);
  write_plan_outputs(run.out_dir, run.header, run.outcome);
  return run;
}

}  // namespace

PlanRun run_plan(const PlanOptions& options) {
  std::unique_ptr<Transport> transport = make_transport();
  try {
    return run_on(*transport, options);
  } catch (...) {
    transport->abort_all();
    throw;
  }
}

std::string plan_summary_text(const PlanRun& run) {
  const PlanOutcome& o = run.outcome;
  int64_t num_feasible = 0, num_missed = 0, num_invalid = 0;
  for (const CandidateResult& r : o.results) {
    num_feasible += r.status == "feasible";
    num_missed += r.status == "slo_missed";
    num_invalid += r.status == "invalid";
  }
  std::string slo;
  for (const std::string& s : run.header.slo) slo += (slo.empty() ? "" : " and ") + s;
  std::string text = fmt::format(
      "plan {}: {} candidates ({} resumed, {} evaluated on {} rank(s) x {} thread(s)): {} meet "
      "the SLO, {} miss it, {} invalid\n",
      run.header.scenario, o.results.size(), run.num_resumed, run.num_evaluated, run.num_ranks,
      run.num_threads, num_feasible, num_missed, num_invalid);
  std::string classes;
  for (const std::string& c : run.header.class_slos) classes += (classes.empty() ? "" : "; ") + c;
  text += fmt::format("SLO: {} (class SLOs: {})\n{}\n\n", slo, classes, o.ranking_rule);
  text += plan_table_text(o);
  text += fmt::format(
      "$/h: the fleet's GPUs x $/GPU-hour; $/day: the run's dollars over its duration x 24 h (the "
      "trace's rate held for a day){}\n\n",
      o.objective == "dollars" ? "; $ trace: the run's billed dollars" : "");
  text += plan_winner_text(run.header, o);
  text += plan_frontier_text(o);
  text += plan_invalid_text(o);
  text += fmt::format("wrote {}/plan.json, plan.csv, results.jsonl\n", run.out_dir);
  return text;
}

}  // namespace tidal::plan
