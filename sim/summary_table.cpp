#include "sim/summary_table.h"

#include <cmath>

#include <fmt/format.h>

namespace tidal::sim {
namespace {

std::string seconds_cell(const LatencySummary& s, double value) {
  return s.count > 0 ? fmt::format("{:.3f}", value) : std::string("-");
}

std::string dollars_cell(const std::optional<double>& v) {
  return v ? fmt::format("${:.3f}", *v) : std::string("-");
}

std::string fleet_text(const Scenario& scenario) {
  std::string text;
  for (const PoolSpec& p : scenario.pools) {
    if (!text.empty()) text += " + ";
    text += fmt::format("{} x {} (tp {} on {}, ${:.2f}/GPU-h)", p.num_replicas, p.model,
                        p.deployment.tp, p.gpu, p.resolved_price_per_gpu_hour);
  }
  return text;
}

}  // namespace

std::string format_summary_table(const Scenario& scenario, const RunMetrics& m) {
  std::string out;
  auto line = [&](const std::string& text) {
    out += text;
    out += '\n';
  };
  line(fmt::format("scenario {}: {}", scenario.name, fleet_text(scenario)));
  line(fmt::format("requests    {} ({} finished, {} rejected) over {:.1f} s simulated",
                   m.num_requests, m.num_finished, m.num_rejected, m.duration_s));
  line(fmt::format("throughput  {:.2f} req/s   input {:.0f} tok/s   output {:.0f} tok/s",
                   m.request_throughput_rps, m.input_tokens_per_s, m.output_tokens_per_s));
  line(fmt::format("{:<12}{:>10}{:>10}{:>10}{:>10}", "latency (s)", "mean", "p50", "p90", "p99"));
  const std::pair<const char*, const LatencySummary*> rows[] = {{"TTFT", &m.ttft},
                                                                {"TPOT", &m.tpot},
                                                                {"ITL", &m.itl},
                                                                {"E2E", &m.e2e},
                                                                {"queue", &m.queue_delay}};
  for (const auto& [name, s] : rows) {
    line(fmt::format("  {:<10}{:>10}{:>10}{:>10}{:>10}", name, seconds_cell(*s, s->mean),
                     seconds_cell(*s, s->p50), seconds_cell(*s, s->p90), seconds_cell(*s, s->p99)));
  }
  std::string classes;
  for (const ClassMetrics& c : m.classes) {
    if (!classes.empty()) classes += ", ";
    classes += fmt::format("{} {:.1f}%", c.name, 100.0 * c.slo_attainment);
  }
  line(fmt::format("SLO         {:.1f}% met ({})   goodput {:.2f} req/s", 100.0 * m.slo_attainment,
                   classes, m.goodput_rps));
  line(fmt::format("cost        {:.2f} GPU-hours   ${:.2f}   utilization {:.1f}%", m.gpu_hours,
                   m.dollars, 100.0 * m.utilization));
  line(fmt::format("            {} / 1M input tokens   {} / 1M output tokens",
                   dollars_cell(m.dollars_per_1m_input_tokens),
                   dollars_cell(m.dollars_per_1m_output_tokens)));
  const FleetMetrics& f = m.fleet;
  std::string by_state;
  for (const auto& [state, dollars] : f.dollars_by_state) {
    if (dollars <= 0.0) continue;
    by_state += fmt::format("{}{} ${:.2f}", by_state.empty() ? "" : ", ", state, dollars);
  }
  if (f.dollars_granularity >= 0.005) {
    by_state += fmt::format(", rounding ${:.2f}", f.dollars_granularity);
  }
  if (!by_state.empty()) line(fmt::format("            by state: {}", by_state));
  if (f.tokens_per_dollar) {
    line(fmt::format("            {:.0f} tokens per $   peak-sized fleet ${:.2f} ({:.1f}% saved)",
                     *f.tokens_per_dollar, f.peak_sized_dollars,
                     // rounded to the printed digit; + 0.0 turns -0.0 into 0.0
                     std::round(1000.0 * f.peak_sized_savings.value_or(0.0)) / 10.0 + 0.0));
  }
  if (f.spot_savings_dollars > 0.0) {
    line(fmt::format(
        "            spot savings ${:.2f} (spot time at the on-demand price, minus its cost)",
        f.spot_savings_dollars));
  }
  if (f.num_scale_ups + f.num_scale_downs + f.num_spot_interruptions > 0) {
    line(
        fmt::format("fleet       {} scale-ups, {} scale-downs, {} spot interruptions, {} re-queued",
                    f.num_scale_ups, f.num_scale_downs, f.num_spot_interruptions, f.num_requeues));
  }
  return out;
}

}  // namespace tidal::sim
