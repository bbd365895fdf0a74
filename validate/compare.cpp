#include "validate/compare.h"

#include "sim/spec_drafting.h"

#include <algorithm>
#include <cmath>

namespace tidal::validate {
namespace {

nlohmann::ordered_json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

// Every sample of an exact SampleSet, ascending: the nearest-rank percentile at
// 100 * (k - 0.5) / n is the k-th smallest sample.
std::vector<double> all_samples(sim::SampleSet& set) {
  std::vector<double> samples;
  const int64_t n = set.count();
  samples.reserve(static_cast<size_t>(n));
  for (int64_t k = 1; k <= n; ++k) {
    samples.push_back(
        set.percentile(100.0 * (static_cast<double>(k) - 0.5) / static_cast<double>(n)));
  }
  return samples;
}

}  // namespace

LatencySamples engine_samples(const EngineSide& side) {
  LatencySamples s;
  for (const engine::RequestRecord& record : side.run.records) {
    if (record.status != engine::RequestStatus::finished) continue;
    const engine::RequestLatency l = engine::request_latency(record);
    if (l.ttft_s) s.ttft.push_back(*l.ttft_s);
    if (l.tpot_s) s.tpot.push_back(*l.tpot_s);
    if (l.e2e_s) s.e2e.push_back(*l.e2e_s);
  }
  s.itl = side.run.itl_s;
  return s;
}

LatencySamples sim_samples(SimRun& run) {
  LatencySamples s;
  for (const sim::RequestRecord& record : run.result.records) {
    if (record.status != sim::RequestStatus::finished) continue;
    const sim::RequestLatency l = sim::request_latency(record);
    if (l.ttft_s) s.ttft.push_back(*l.ttft_s);
    if (l.tpot_s) s.tpot.push_back(*l.tpot_s);
    if (l.e2e_s) s.e2e.push_back(*l.e2e_s);
  }
  s.itl = all_samples(run.result.itl);
  return s;
}

MetricComparison compare_metric(const std::string& name, const std::vector<double>& engine,
                                const std::vector<double>& sim) {
  MetricComparison m;
  m.name = name;
  m.engine = describe(engine);
  m.sim = describe(sim);
  const std::array<double, 4> e{m.engine.mean, m.engine.p50, m.engine.p90, m.engine.p99};
  const std::array<double, 4> p{m.sim.mean, m.sim.p50, m.sim.p90, m.sim.p99};
  for (size_t i = 0; i < e.size(); ++i) {
    m.signed_pct[i] = signed_pct_error(p[i], e[i]);
    m.abs_pct[i] = abs_pct_error(p[i], e[i]);
  }
  m.ks = ks_distance(engine, sim);
  return m;
}

std::vector<MetricComparison> compare_latencies(const LatencySamples& engine,
                                                const LatencySamples& sim) {
  return {compare_metric("ttft", engine.ttft, sim.ttft),
          compare_metric("tpot", engine.tpot, sim.tpot), compare_metric("itl", engine.itl, sim.itl),
          compare_metric("e2e", engine.e2e, sim.e2e)};
}

std::vector<FigureComparison> compare_figures(const engine::RunMetrics& engine,
                                              const sim::RunMetrics& sim) {
  auto figure = [](const char* name, double e, double s) {
    return FigureComparison{name, e, s, signed_pct_error(s, e)};
  };
  return {
      figure("output_tokens_per_s", engine.output_tokens_per_s, sim.output_tokens_per_s),
      figure("request_throughput_rps", engine.request_throughput_rps, sim.request_throughput_rps),
      figure("makespan_s", engine.duration_s, sim.duration_s)};
}

std::vector<StepPrediction> predict_steps(const std::vector<engine::StepRecord>& steps,
                                          const perf::StepTimeModel& model,
                                          const sim::SpeculativeSpec& spec) {
  std::vector<StepPrediction> out;
  out.reserve(steps.size());
  std::vector<perf::SeqWork> work;  // [num seqs of the step]
  for (const engine::StepRecord& step : steps) {
    work.clear();
    StepPrediction p;
    int32_t max_spec = 0;
    for (const sched::ScheduledSeq& seq : step.seqs) {
      work.push_back(
          {seq.num_new_tokens, seq.num_context_tokens, seq.samples ? 1 + seq.num_spec_tokens : 0});
      p.num_tokens += seq.num_new_tokens;
      max_spec = std::max(max_spec, seq.num_spec_tokens);
    }
    const double draft_cost_ratio = spec.enabled() ? spec.draft_cost_ratio : 0.0;
    const double host_draft_s = sim::host_drafting_seconds(spec, work);
    p.num_seqs = static_cast<int64_t>(step.seqs.size());
    p.measured_s = static_cast<double>(step.end_ns - step.start_ns) * 1e-9;
    p.predicted_s = model.step_seconds(work) * (1.0 + draft_cost_ratio * max_spec) + host_draft_s +
                    model.swap_seconds(step.num_swap_out_blocks + step.num_swap_in_blocks);
    p.signed_pct = signed_pct_error(p.predicted_s, p.measured_s).value_or(0.0);
    out.push_back(p);
  }
  return out;
}

StepErrorSummary summarize_steps(const std::vector<StepPrediction>& steps) {
  StepErrorSummary s;
  s.num_steps = static_cast<int64_t>(steps.size());
  if (steps.empty()) return s;
  std::vector<double> abs_errors;
  std::vector<double> signed_errors;
  for (const StepPrediction& p : steps) {
    abs_errors.push_back(std::abs(p.signed_pct));
    signed_errors.push_back(p.signed_pct);
    s.measured_total_s += p.measured_s;
    s.predicted_total_s += p.predicted_s;
  }
  std::sort(abs_errors.begin(), abs_errors.end());
  std::sort(signed_errors.begin(), signed_errors.end());
  s.median_abs_pct = nearest_rank(abs_errors, 50.0);
  s.p90_abs_pct = nearest_rank(abs_errors, 90.0);
  s.median_signed_pct = nearest_rank(signed_errors, 50.0);
  return s;
}

nlohmann::ordered_json to_json(const Distribution& d) {
  return {{"count", d.count}, {"mean", d.mean}, {"p50", d.p50}, {"p90", d.p90}, {"p99", d.p99}};
}

nlohmann::ordered_json to_json(const MetricComparison& m) {
  static constexpr std::array<const char*, 4> kStats{"mean", "p50", "p90", "p99"};
  nlohmann::ordered_json signed_pct = nlohmann::ordered_json::object();
  nlohmann::ordered_json abs_pct = nlohmann::ordered_json::object();
  for (size_t i = 0; i < kStats.size(); ++i) {
    signed_pct[kStats[i]] = optional_number(m.signed_pct[i]);
    abs_pct[kStats[i]] = optional_number(m.abs_pct[i]);
  }
  return {{"engine", to_json(m.engine)},
          {"sim", to_json(m.sim)},
          {"signed_error_pct", signed_pct},
          {"abs_error_pct", abs_pct},
          {"ks_distance", m.ks}};
}

nlohmann::ordered_json to_json(const FigureComparison& f) {
  return {
      {"engine", f.engine}, {"sim", f.sim}, {"signed_error_pct", optional_number(f.signed_pct)}};
}

nlohmann::ordered_json to_json(const StepErrorSummary& s) {
  return {{"num_steps", s.num_steps},
          {"median_abs_error_pct", s.median_abs_pct},
          {"p90_abs_error_pct", s.p90_abs_pct},
          {"median_signed_error_pct", s.median_signed_pct},
          {"measured_total_s", s.measured_total_s},
          {"predicted_total_s", s.predicted_total_s}};
}

}  // namespace tidal::validate
