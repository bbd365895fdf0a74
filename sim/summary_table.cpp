#include "sim/summary_table.h"

#include <fmt/format.h>

#include "base/number_format.h"

namespace tidal::sim {
namespace {

using base::format_count;
using base::format_dollars;
using base::format_latency;
using base::format_percent;
using base::format_significant;

std::string latency_cell(const LatencySummary& s, double value) {
  return s.count > 0 ? format_latency(value) : std::string("-");
}

std::string dollars_cell(const std::optional<double>& v) {
  return v ? format_dollars(*v) : std::string("-");
}

std::string percent_cell(const std::optional<double>& v) {
  return v ? format_percent(*v) : std::string("-");
}

// A per-second rate: three significant digits, separators ("12.0 req/s", "9,876 tok/s").
std::string rate(double per_second, const char* unit) {
  return format_significant(per_second) + " " + unit;
}

std::string fleet_text(const Scenario& scenario) {
  std::string text;
  for (const PoolSpec& p : scenario.pools) {
    if (!text.empty()) text += " + ";
    const perf::Deployment& d = p.deployment;
    std::string layout =
        d.ep == 1 && d.attention_dp == 1
            ? fmt::format("tp {}", d.tp)
            : fmt::format("tp {} x attention_dp {}, ep {}", d.tp, d.attention_dp, d.ep);
    if (d.pp > 1) layout += fmt::format(", pp {}", d.pp);
    text += fmt::format("{} x {} ({} on {}, {}/GPU-h)", format_count(p.num_replicas), p.model,
                        layout, p.gpu, format_dollars(p.resolved_price_per_gpu_hour));
  }
  return text;
}

// "12 rejected: exceeds_kv_capacity 10, unfinished when the simulation ended 2".
std::string rejections_text(const RunMetrics& m) {
  std::string text = fmt::format("{} rejected", format_count(m.num_rejected));
  const char* separator = ": ";
  for (const auto& [reason, count] : m.rejections) {
    text += fmt::format("{}{} {}", separator, reason, format_count(count));
    separator = ", ";
  }
  return text;
}

// One pool's load: its batch against the limit, KV use, MFU and MBU.
std::string load_text(const PoolMetrics& p) {
  return fmt::format(
      "{}: batch mean {} p99 {} of {}   KV mean {} peak {}   MFU {}   MBU {}   busy share {}",
      p.name, format_significant(p.mean_batch), format_count(p.p99_batch),
      format_count(p.max_num_seqs), format_percent(p.mean_kv_usage),
      format_percent(p.peak_kv_usage), percent_cell(p.mfu), percent_cell(p.mbu),
      format_percent(p.utilization));
}

// The run's energy: kWh (PUE applied), per request and per 1M output tokens, carbon and
// energy cost where the sites give them ("-" otherwise).
std::string energy_text(const EnergyReport& e) {
  const auto significant = [](const std::optional<double>& v) {
    return v ? format_significant(*v) : std::string("-");
  };
  return fmt::format(
      "energy      {} kWh   {} Wh/request   {} kWh/1M output tokens   {} kgCO2e   {} energy",
      format_significant(e.facility_joules / fleet::kJoulesPerKwh), significant(e.wh_per_request),
      significant(e.kwh_per_1m_output_tokens), significant(e.kg_co2e), dollars_cell(e.dollars));
}

}  // namespace

std::string format_summary_table(const Scenario& scenario, const RunMetrics& m) {
  std::string out;
  auto line = [&](const std::string& text) {
    out += text;
    out += '\n';
  };
  line(fmt::format("scenario {}: {}", scenario.name, fleet_text(scenario)));
  line(fmt::format("requests    {} ({} finished, {}) over {} s simulated",
                   format_count(m.num_requests), format_count(m.num_finished), rejections_text(m),
                   base::format_number(m.duration_s, 1)));
  line(fmt::format("throughput  {}   input {}   output {}", rate(m.request_throughput_rps, "req/s"),
                   rate(m.input_tokens_per_s, "tok/s"), rate(m.output_tokens_per_s, "tok/s")));
  line(fmt::format("{:<12}{:>10}{:>10}{:>10}{:>10}", "latency", "mean", "p50", "p90", "p99"));
  const std::pair<const char*, const LatencySummary*> rows[] = {{"TTFT", &m.ttft},
                                                                {"TPOT", &m.tpot},
                                                                {"ITL", &m.itl},
                                                                {"E2E", &m.e2e},
                                                                {"queue", &m.queue_delay}};
  for (const auto& [name, s] : rows) {
    line(fmt::format("  {:<10}{:>10}{:>10}{:>10}{:>10}", name, latency_cell(*s, s->mean),
                     latency_cell(*s, s->p50), latency_cell(*s, s->p90), latency_cell(*s, s->p99)));
  }
  std::string classes;
  for (const ClassMetrics& c : m.classes) {
    if (!classes.empty()) classes += ", ";
    classes += fmt::format("{} {}", c.name, format_percent(c.slo_attainment));
  }
  line(fmt::format("SLO         {} of all requests met ({}), {} of finished   goodput {}",
                   format_percent(m.slo_attainment), classes, percent_cell(m.finished_slo_share),
                   rate(m.goodput_rps, "req/s")));
  line(fmt::format("load        busy share {}   MFU {}   MBU {}", format_percent(m.utilization),
                   percent_cell(m.mfu), percent_cell(m.mbu)));
  for (const PoolMetrics& p : m.pools) line("            " + load_text(p));
  line(fmt::format("cost        {} GPU-hours   {}", base::format_number(m.gpu_hours, 2),
                   format_dollars(m.dollars)));
  line(fmt::format("            {} / 1M input tokens   {} / 1M output tokens",
                   dollars_cell(m.dollars_per_1m_input_tokens),
                   dollars_cell(m.dollars_per_1m_output_tokens)));
  const FleetMetrics& f = m.fleet;
  std::string by_state;
  for (const auto& [state, dollars] : f.dollars_by_state) {
    if (dollars <= 0.0) continue;
    by_state +=
        fmt::format("{}{} {}", by_state.empty() ? "" : ", ", state, format_dollars(dollars));
  }
  if (f.dollars_granularity >= 0.005) {
    by_state += fmt::format(", rounding {}", format_dollars(f.dollars_granularity));
  }
  if (!by_state.empty()) line(fmt::format("            by state: {}", by_state));
  if (f.tokens_per_dollar) {
    line(fmt::format("            {} tokens per $   peak-sized fleet {} ({} saved)",
                     base::format_number(*f.tokens_per_dollar, 0),
                     format_dollars(f.peak_sized_dollars),
                     base::format_number(100.0 * f.peak_sized_savings.value_or(0.0), 1) + "%"));
  }
  if (m.egress) {
    const EgressPoolTotals total = m.egress->total();
    line(fmt::format("            egress {} (requests {}, answers {}, KV {}), in the cost above",
                     format_dollars(total.dollars()), format_dollars(total.request.dollars),
                     format_dollars(total.response.dollars), format_dollars(total.kv.dollars)));
  }
  if (f.spot_savings_dollars > 0.0) {
    line(fmt::format(
        "            spot savings {} (spot time at the on-demand price, minus its cost)",
        format_dollars(f.spot_savings_dollars)));
  }
  if (m.energy) line(energy_text(*m.energy));
  if (f.num_scale_ups + f.num_scale_downs + f.num_spot_interruptions > 0) {
    line(
        fmt::format("fleet       {} scale-ups, {} scale-downs, {} spot interruptions, {} re-queued",
                    format_count(f.num_scale_ups), format_count(f.num_scale_downs),
                    format_count(f.num_spot_interruptions), format_count(f.num_requeues)));
  }
  return out;
}

}  // namespace tidal::sim
