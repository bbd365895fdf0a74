#include "engine/run_writer.h"

#include <filesystem>
#include <iterator>

#include <fmt/format.h>

#include "engine/steps_csv.h"
#include "models/quantize_weights.h"
#include "traces/csv_text.h"
#include "traces/output_files.h"
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
    traces::append_csv_fields(buf, {workload, q.tenant, q.slo_class});
    buf.push_back(',');
    traces::append_seconds_fields_if_set(
        buf, {r.arrival_ns, r.first_scheduled_ns, r.first_token_ns, r.finish_ns});
    fmt::format_to(std::back_inserter(buf), ",{},{},", q.prompt_tokens, q.output_tokens);
    buf.append(std::string_view(r.replica >= 0 ? "0,engine" : ","));
    fmt::format_to(std::back_inserter(buf), ",{},{},", r.num_preemptions, r.num_prefix_hit_tokens);
    traces::append_fixed6_fields_if_set(buf,
                                        {lat.ttft_s, lat.tpot_s, lat.e2e_s, lat.queue_delay_s});
    buf.push_back(',');
    if (r.status == RequestStatus::finished) traces::append_seconds_if_set(buf, r.max_itl_ns);
    fmt::format_to(std::back_inserter(buf), ",{},{},", r.status == RequestStatus::finished ? 1 : 0,
                   request_status_name(r.status));
    traces::append_csv_field(buf, r.reason);
    buf.push_back('\n');
    traces::flush_if_large(buf, out);
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void write_timeline_csv(const std::vector<TimelineRow>& rows, std::ostream& out) {
  fmt::memory_buffer buf;
  buf.append(std::string_view(
      "start_s,end_s,arrivals,finished,rejected,output_tokens,queue_depth,running,"
      "replicas_starting,replicas_warm,replicas_draining,replicas_stopped,kv_usage,utilization,"
      "dollars,cumulative_dollars\n"));
  for (const TimelineRow& row : rows) {
    fmt::format_to(std::back_inserter(buf),
                   "{},{},{},{},{},{},{},{},0,1,0,0,{:.6f},{:.6f},0.000000,0.000000\n",
                   format_seconds(row.start_ns), format_seconds(row.end_ns), row.num_arrivals,
                   row.num_finished, row.num_rejected, row.num_output_tokens, row.queue_depth,
                   row.num_running, row.kv_usage, row.utilization);
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
    traces::flush_if_large(buf, out);
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
                                   {"num_speculative_tokens", s.num_speculative_tokens}}},
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
  traces::create_output_folder(dir);
  const std::filesystem::path root(dir);
  const RunMetrics metrics =
      compute_metrics(run.records, run.requests, run.itl_s, run.busy_ns, run.end_ns);
  traces::write_output_file((root / "summary.json").string(), [&](std::ostream& out) {
    out << summary_json(inputs, engine, run, metrics).dump(2) << '\n';
  });
  traces::write_output_file((root / "requests.csv").string(), [&](std::ostream& out) {
    write_requests_csv(run, options.workload, out);
  });
  traces::write_output_file((root / "timeline.csv").string(), [&](std::ostream& out) {
    write_timeline_csv(compute_timeline(run.records, run.steps, run.states,
                                        replay.timeline_interval_ns, run.end_ns),
                       out);
  });
  traces::write_output_file((root / "trace.json").string(), [&](std::ostream& out) {
    write_chrome_trace(run, options.trace_max_slices, out);
  });
  traces::write_output_file((root / "steps.csv").string(),
                            [&](std::ostream& out) { write_steps_csv(run, out); });
}

}  // namespace tidal::engine
