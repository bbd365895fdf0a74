#include "engine/run_writer.h"

#include <filesystem>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "base/csv_text.h"
#include "base/run_folder.h"
#include "engine/steps_csv.h"
#include "engine/stop_signals.h"
#include "models/quantize_weights.h"
#include "traces/run_figures.h"

namespace tidal::engine {

namespace {

using ojson = nlohmann::ordered_json;

ojson metrics_json(const RunMetrics& m) {
  // No SLO classes: every finished request meets its (absent) SLO.
  ojson metrics = traces::request_figures_json(m);
  metrics["num_slo_met"] = m.num_finished;
  metrics["slo_attainment"] =
      m.num_requests > 0 ? static_cast<double>(m.num_finished) / static_cast<double>(m.num_requests)
                         : 0.0;
  metrics["goodput_rps"] = m.request_throughput_rps;
  metrics["slo_classes"] = ojson::array();
  metrics["utilization"] = m.utilization;
  return metrics;
}

// What a replay stopped early got done (docs/run-output.md, "Partial engine runs").
ojson partial_json(const EngineRun& run) {
  int64_t num_finished = 0;
  int64_t num_rejected = 0;
  for (const RequestRecord& r : run.records) {
    num_finished += r.status == RequestStatus::finished;
    num_rejected += r.status == RequestStatus::rejected;
  }
  const auto num_requests = static_cast<int64_t>(run.records.size());
  return ojson{{"stopped_by", signal_name(run.stop_signal)},
               {"num_requests", num_requests},
               {"num_finished", num_finished},
               {"num_rejected", num_rejected},
               {"num_unfinished", num_requests - num_finished - num_rejected},
               {"num_steps", static_cast<int64_t>(run.steps.size())}};
}

}  // namespace

void write_requests_csv(const EngineRun& run, const std::string& workload, std::ostream& out) {
  fmt::memory_buffer buf;
  buf.append(std::string_view(
      "id,workload,tenant,slo_class,arrival_s,first_scheduled_s,first_token_s,finish_s,"
      "prompt_tokens,output_tokens,replica,pool,preemptions,prefix_hit_tokens,ttft_s,tpot_s,"
      "e2e_s,queue_delay_s,max_itl_s,slo_met,status,reason\n"));
  for (size_t i = 0; i < run.requests.size(); ++i) {
    const Request& q = run.requests[i];
    const RequestRecord& r = run.records[i];
    const RequestLatency lat = request_latency(r);
    fmt::format_to(std::back_inserter(buf), "{},", q.id);
    base::append_csv_fields(buf, {workload, q.tenant, q.slo_class});
    buf.push_back(',');
    base::append_seconds_fields_if_set(
        buf, {r.arrival_ns, r.first_scheduled_ns, r.first_token_ns, r.finish_ns});
    fmt::format_to(std::back_inserter(buf), ",{},{},", q.prompt_tokens, q.output_tokens);
    buf.append(std::string_view(r.replica >= 0 ? "0,engine" : ","));
    fmt::format_to(std::back_inserter(buf), ",{},{},", r.num_preemptions, r.num_prefix_hit_tokens);
    base::append_fixed6_fields_if_set(buf, {lat.ttft_s, lat.tpot_s, lat.e2e_s, lat.queue_delay_s});
    buf.push_back(',');
    if (r.status == RequestStatus::finished) base::append_seconds_if_set(buf, r.max_itl_ns);
    fmt::format_to(std::back_inserter(buf), ",{},{},", r.status == RequestStatus::finished ? 1 : 0,
                   request_status_name(r.status));
    base::append_csv_field(buf, r.reason);
    buf.push_back('\n');
    base::flush_if_large(buf, out);
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

namespace {

// The engine's queue depth, running requests and KV use as they change: a step's sequences
// run from its start; the state after it holds from its end.
struct Gauges {
  double queue_depth = 0.0;
  double running = 0.0;
  double kv_usage = 0.0;
};

// Through one interval (docs/run-output.md, timeline.csv): the largest value, the end sample
// included, and the time-weighted mean.
struct IntervalGauges {
  Gauges max, mean;
};

std::vector<IntervalGauges> interval_gauges(const EngineRun& run,
                                            const std::vector<TimelineRow>& rows) {
  std::vector<IntervalGauges> out(rows.size());
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  Gauges now;
  size_t next_step = 0;   // the next step start to apply
  size_t next_state = 0;  // the next state sample to apply
  const auto step_start = [&] {
    return next_step < run.steps.size() ? run.steps[next_step].start_ns : kNone;
  };
  const auto state_time = [&] {
    return next_state < run.states.size() ? run.states[next_state].time_ns : kNone;
  };
  for (size_t r = 0; r < rows.size(); ++r) {
    const TimelineRow& row = rows[r];
    IntervalGauges& g = out[r];
    g.max = now;
    Gauges integral;
    int64_t t = row.start_ns;
    const auto integrate_to = [&](int64_t until) {
      const auto dt = static_cast<double>(until - t);
      integral.queue_depth += now.queue_depth * dt;
      integral.running += now.running * dt;
      integral.kv_usage += now.kv_usage * dt;
      t = until;
    };
    while (std::min(step_start(), state_time()) <= row.end_ns) {
      // A step's end (its state) comes before a step starting at the same time.
      const bool state_first = state_time() <= step_start();
      integrate_to(std::max(t, state_first ? state_time() : step_start()));
      if (state_first) {
        const StateSample& state = run.states[next_state++];
        now = Gauges{static_cast<double>(state.num_waiting), static_cast<double>(state.num_running),
                     state.kv_usage};
      } else {
        now.running = static_cast<double>(run.steps[next_step++].seqs.size());
      }
      g.max.queue_depth = std::max(g.max.queue_depth, now.queue_depth);
      g.max.running = std::max(g.max.running, now.running);
      g.max.kv_usage = std::max(g.max.kv_usage, now.kv_usage);
    }
    integrate_to(row.end_ns);
    const auto length = static_cast<double>(std::max<int64_t>(1, row.end_ns - row.start_ns));
    g.mean = Gauges{integral.queue_depth / length, integral.running / length,
                    integral.kv_usage / length};
    g.max.queue_depth = std::max(g.max.queue_depth, static_cast<double>(row.queue_depth));
    g.max.running = std::max(g.max.running, static_cast<double>(row.num_running));
    g.max.kv_usage = std::max(g.max.kv_usage, row.kv_usage);
  }
  return out;
}

}  // namespace

void write_timeline_csv(const EngineRun& run, const std::vector<TimelineRow>& rows,
                        std::ostream& out) {
  const std::vector<IntervalGauges> gauges = interval_gauges(run, rows);
  fmt::memory_buffer buf;
  buf.append(std::string_view(
      "start_s,end_s,arrivals,finished,rejected,output_tokens,queue_depth,running,"
      "replicas_starting,replicas_warm,replicas_draining,replicas_stopped,kv_usage,utilization,"
      "dollars,cumulative_dollars,queue_depth_max,queue_depth_mean,running_max,running_mean,"
      "kv_usage_max,kv_usage_mean\n"));
  for (size_t r = 0; r < rows.size(); ++r) {
    const TimelineRow& row = rows[r];
    const IntervalGauges& g = gauges[r];
    fmt::format_to(
        std::back_inserter(buf),
        "{},{},{},{},{},{},{},{},0,1,0,0,{:.6f},{:.6f},0.000000,0.000000,"
        "{},{:.6f},{},{:.6f},{:.6f},{:.6f}\n",
        format_seconds(row.start_ns), format_seconds(row.end_ns), row.num_arrivals,
        row.num_finished, row.num_rejected, row.num_output_tokens, row.queue_depth, row.num_running,
        row.kv_usage, row.utilization, static_cast<int64_t>(g.max.queue_depth), g.mean.queue_depth,
        static_cast<int64_t>(g.max.running), g.mean.running, g.max.kv_usage, g.mean.kv_usage);
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void write_chrome_trace(const EngineRun& run, int64_t max_slices, std::ostream& out) {
  fmt::memory_buffer buf;
  buf.append(std::string_view(
      "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
      "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"engine\"}},\n"
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
      "\"args\":{\"name\":\"replica 0\"}}"));
  const auto append_us = [&](int64_t ns) {
    fmt::format_to(std::back_inserter(buf), "{}.{:03}", ns / 1000, ns % 1000);
  };
  const int64_t num_steps = static_cast<int64_t>(run.steps.size());
  const int64_t num_written = std::min(num_steps, max_slices);
  for (int64_t i = 0; i < num_written; ++i) {
    const StepRecord& s = run.steps[static_cast<size_t>(i)];
    int64_t num_tokens = 0;
    for (const sched::ScheduledSeq& seq : s.seqs) num_tokens += seq.num_new_tokens;
    buf.append(std::string_view(",\n{\"name\":\"step\",\"ph\":\"X\",\"pid\":0,\"tid\":0,\"ts\":"));
    append_us(s.start_ns);
    buf.append(std::string_view(",\"dur\":"));
    append_us(s.end_ns - s.start_ns);
    fmt::format_to(std::back_inserter(buf), ",\"args\":{{\"num_seqs\":{},\"num_tokens\":{}}}}}",
                   s.seqs.size(), num_tokens);
    base::flush_if_large(buf, out);
  }
  fmt::format_to(std::back_inserter(buf),
                 "\n],\"otherData\":{{\"num_slices_written\":{},\"num_slices_dropped\":{}}}}}\n",
                 num_written, num_steps - num_written);
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

ojson engine_config_json(const EngineConfig& c) {
  const sched::SchedulerConfig& s = c.scheduler;
  return ojson{{"tp", c.tp},
               {"threads", c.num_threads},
               {"quant", models::quant_spec_name(c.quant)},
               {"kv_dtype", kernels::kv_dtype_name(c.kv_dtype)},
               {"block_size", c.block_size},
               {"num_gpu_blocks", c.num_gpu_blocks},
               {"num_cpu_blocks", c.num_cpu_blocks},
               {"prefix_caching", c.enable_prefix_caching},
               {"scheduler", ojson{{"policy", s.policy},
                                   {"admission", s.admission},
                                   {"preemption", s.preemption},
                                   {"max_num_seqs", s.max_num_seqs},
                                   {"max_num_batched_tokens", s.max_num_batched_tokens},
                                   {"watermark", s.watermark},
                                   {"max_model_len", s.max_model_len},
                                   {"static_batch_size", s.static_batch_size},
                                   {"static_batch_timeout_s", s.static_batch_timeout_s},
                                   {"num_speculative_tokens", s.num_speculative_tokens},
                                   {"queue_policy", s.queue_policy},
                                   {"fair_share_input_weight", s.fair_share_input_weight},
                                   {"fair_share_output_weight", s.fair_share_output_weight}}},
               {"spec", spec_config_name(c.spec)},
               {"sampling", ojson{{"temperature", c.sampling.temperature},
                                  {"top_k", c.sampling.top_k},
                                  {"top_p", c.sampling.top_p}}},
               {"seed", c.seed}};
}

ojson summary_json(const ojson& inputs, const Engine& engine, const EngineRun& run,
                   const RunMetrics& metrics) {
  const SpecStats& spec = engine.spec_stats();
  const sched::SchedulerStats& sched = engine.scheduler().stats();
  const kv::BlockManagerStats& kv = engine.block_manager().stats();
  return ojson{{"inputs", inputs},
               {"engine", engine_config_json(engine.config())},
               {"memory", to_json(engine.memory())},
               {"metrics", metrics_json(metrics)},
               {"speculative", ojson{{"method", spec_config_name(engine.config().spec)},
                                     {"num_verifications", spec.num_verifications},
                                     {"num_draft_tokens", spec.num_draft_tokens},
                                     {"num_accepted_tokens", spec.num_accepted_tokens},
                                     {"acceptance_rate", spec.acceptance_rate()},
                                     {"mean_accepted_length", spec.mean_accepted_length()}}},
               {"run", ojson{{"end_s", static_cast<double>(run.end_ns) * 1e-9},
                             {"wall_s", run.wall_s},
                             {"num_steps", static_cast<int64_t>(run.steps.size())},
                             {"busy_s", static_cast<double>(run.busy_ns) * 1e-9},
                             {"num_recompute_preemptions", sched.num_recompute_preemptions},
                             {"num_swap_preemptions", sched.num_swap_preemptions},
                             {"num_swap_out_blocks", kv.num_swap_out_blocks},
                             {"num_swap_in_blocks", kv.num_swap_in_blocks},
                             {"num_prefix_queried_blocks", kv.num_queried_blocks},
                             {"num_prefix_hit_blocks", kv.num_hit_blocks}}}};
}

void write_run_folder(const std::string& dir, const ojson& inputs, const Engine& engine,
                      const EngineRun& run, const ReplayOptions& replay,
                      const RunFolderOptions& options) {
  base::RunFolderWriter folder(dir);  // written as a whole (base/run_folder.h)
  const RunMetrics metrics =
      compute_metrics(run.records, run.requests, run.itl_s, run.busy_ns, run.end_ns);
  folder.write_file("requests.csv",
                    [&](std::ostream& out) { write_requests_csv(run, options.workload, out); });
  folder.write_file("timeline.csv", [&](std::ostream& out) {
    write_timeline_csv(run,
                       compute_timeline(run.records, run.steps, run.states,
                                        replay.timeline_interval_ns, run.end_ns),
                       out);
  });
  folder.write_file("trace.json", [&](std::ostream& out) {
    write_chrome_trace(run, options.trace_max_slices, out);
  });
  folder.write_file("steps.csv", [&](std::ostream& out) { write_steps_csv(run, out); });
  ojson summary = summary_json(inputs, engine, run, metrics);
  if (run.stop_signal != 0) summary["partial"] = partial_json(run);
  folder.finish(summary);
}

}  // namespace tidal::engine
