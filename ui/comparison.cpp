#include "ui/comparison.h"

#include <cmath>

namespace tidal::ui {
namespace {

using plot::Unit;

std::optional<double> figure(const std::optional<double>& v) {
  return v;
}
std::optional<double> figure(double v) {
  return v;
}
std::optional<double> figure(int64_t v) {
  return static_cast<double>(v);
}

}  // namespace

std::optional<double> DeltaRow::relative_change() const {
  if (!pinned || !current || *pinned == 0.0) return std::nullopt;
  return (*current - *pinned) / std::fabs(*pinned);
}

int DeltaRow::verdict() const {
  if (!pinned || !current || *pinned == *current) return 0;
  const bool lower = *current < *pinned;
  return lower == lower_is_better ? 1 : -1;
}

std::vector<DeltaRow> delta_rows(const reports::RunSummary& a, const reports::RunSummary& b) {
  std::vector<DeltaRow> rows;
  const auto add = [&](std::string metric, Unit unit, bool lower_is_better, auto pinned,
                       auto current) {
    rows.push_back({std::move(metric), unit, lower_is_better, figure(pinned), figure(current)});
  };
  add("requests finished", Unit::count, false, a.num_finished, b.num_finished);
  add("requests rejected", Unit::count, true, a.num_rejected, b.num_rejected);
  add("SLO attainment", Unit::share, false, a.slo_attainment, b.slo_attainment);
  add("goodput", Unit::requests_per_s, false, a.goodput_rps, b.goodput_rps);
  add("TTFT p50", Unit::latency, true, a.ttft.p50_s, b.ttft.p50_s);
  add("TTFT p99", Unit::latency, true, a.ttft.p99_s, b.ttft.p99_s);
  add("TPOT p50", Unit::latency, true, a.tpot.p50_s, b.tpot.p50_s);
  add("TPOT p99", Unit::latency, true, a.tpot.p99_s, b.tpot.p99_s);
  add("E2E p50", Unit::latency, true, a.e2e.p50_s, b.e2e.p50_s);
  add("E2E p99", Unit::latency, true, a.e2e.p99_s, b.e2e.p99_s);
  add("queue delay p99", Unit::latency, true, a.queue_delay.p99_s, b.queue_delay.p99_s);
  add("output tokens/s", Unit::tokens_per_s, false, a.output_tokens_per_s, b.output_tokens_per_s);
  add("preemptions", Unit::count, true, a.num_preemptions, b.num_preemptions);
  add("utilization", Unit::share, false, a.utilization, b.utilization);
  add("GPU-hours", Unit::count, true, a.gpu_hours, b.gpu_hours);
  add("dollars", Unit::dollars, true, a.dollars, b.dollars);
  add("$ / 1M tokens", Unit::dollars_per_1m, true, a.dollars_per_1m_tokens,
      b.dollars_per_1m_tokens);
  add("$ / 1M output tokens", Unit::dollars_per_1m, true, a.dollars_per_1m_output_tokens,
      b.dollars_per_1m_output_tokens);
  return rows;
}

}  // namespace tidal::ui
