#include "validate/validation_json.h"

#include <array>
#include <cmath>

#include <fmt/format.h>

namespace tidal::validate {
namespace {

constexpr std::array<const char*, 4> kStats{"mean", "p50", "p90", "p99"};

std::string upper(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return out;
}

std::string pct(const std::optional<double>& v) {
  return v ? fmt::format("{:+.1f}%", *v) : std::string("n/a");
}

std::string ms(double seconds) {
  return fmt::format("{:.3f}", seconds * 1e3);
}

nlohmann::ordered_json row(const std::string& metric, const std::string& unit, double predicted,
                           double measured, double tolerance) {
  const std::optional<double> e = signed_pct_error(predicted, measured);
  const double error = e ? *e / 100.0 : 0.0;
  return {{"metric", metric},
          {"unit", unit},
          {"predicted", predicted},
          {"measured", measured},
          {"error", error},
          {"tolerance", tolerance},
          {"pass", e.has_value() && std::abs(error) <= tolerance}};
}

bool within(const std::optional<double>& abs_pct, double target) {
  return abs_pct.has_value() && *abs_pct <= target;
}

}  // namespace

nlohmann::ordered_json comparison_json(const Comparison& comparison) {
  nlohmann::ordered_json latency = nlohmann::ordered_json::object();
  for (const MetricComparison& m : comparison.latency) latency[m.name] = to_json(m);
  nlohmann::ordered_json figures = nlohmann::ordered_json::object();
  for (const FigureComparison& f : comparison.figures) figures[f.name] = to_json(f);
  return {{"latency", latency}, {"run", figures}};
}

nlohmann::ordered_json metric_rows(const Comparison& comparison) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const MetricComparison& m : comparison.latency) {
    const std::array<double, 4> engine{m.engine.mean, m.engine.p50, m.engine.p90, m.engine.p99};
    const std::array<double, 4> sim{m.sim.mean, m.sim.p50, m.sim.p90, m.sim.p99};
    for (size_t i = 0; i < kStats.size(); ++i) {
      const double tolerance = (i == 0 ? kMeanTargetPct : kTailTargetPct) / 100.0;
      rows.push_back(
          row(fmt::format("{} {}", upper(m.name), kStats[i]), "s", sim[i], engine[i], tolerance));
    }
  }
  for (const FigureComparison& f : comparison.figures) {
    if (f.name == "output_tokens_per_s") {
      rows.push_back(row("output throughput", "tok/s", f.sim, f.engine, kMeanTargetPct / 100.0));
    } else if (f.name == "makespan_s") {
      rows.push_back(row("makespan", "s", f.sim, f.engine, kMeanTargetPct / 100.0));
    }
  }
  return rows;
}

nlohmann::ordered_json targets_json(const Comparison& comparison, const StepErrorSummary& steps) {
  bool means = true;
  bool tails = true;
  for (const MetricComparison& m : comparison.latency) {
    if (m.name == "itl") continue;
    means = means && within(m.abs_pct[0], kMeanTargetPct);
    tails = tails && within(m.abs_pct[3], kTailTargetPct);
  }
  return {{"step_median", steps.num_steps > 0 && steps.median_abs_pct < kStepMedianTargetPct},
          {"step_p90", steps.num_steps > 0 && steps.p90_abs_pct < kStepP90TargetPct},
          {"request_means", means},
          {"request_p99", tails}};
}

std::string format_table(const std::string& title, const Comparison& comparison,
                         const StepErrorSummary& steps, const std::optional<Comparison>& noise) {
  std::string out = fmt::format("validation: {}\n", title);
  out += fmt::format("{:<5} {:>23} {:>23} {:>23} {:>23} {:>6}\n", "ms", "mean eng/sim (err)",
                     "p50 eng/sim (err)", "p90 eng/sim (err)", "p99 eng/sim (err)", "KS");
  for (const MetricComparison& m : comparison.latency) {
    const std::array<double, 4> engine{m.engine.mean, m.engine.p50, m.engine.p90, m.engine.p99};
    const std::array<double, 4> sim{m.sim.mean, m.sim.p50, m.sim.p90, m.sim.p99};
    out += fmt::format("{:<5}", upper(m.name));
    for (size_t i = 0; i < kStats.size(); ++i) {
      out += fmt::format(
          " {:>23}", fmt::format("{}/{} ({})", ms(engine[i]), ms(sim[i]), pct(m.signed_pct[i])));
    }
    out += fmt::format(" {:>6.3f}\n", m.ks);
  }
  for (const FigureComparison& f : comparison.figures) {
    out += fmt::format("{}: engine {:.4g}, sim {:.4g} ({})\n", f.name, f.engine, f.sim,
                       pct(f.signed_pct));
  }
  out += fmt::format(
      "step duration |error|: median {:.2f}%, p90 {:.2f}% over {} steps (median signed "
      "{:+.2f}%; total measured {:.3f} s, predicted {:.3f} s)\n",
      steps.median_abs_pct, steps.p90_abs_pct, steps.num_steps, steps.median_signed_pct,
      steps.measured_total_s, steps.predicted_total_s);
  if (noise) {
    out += "engine repeat vs engine (noise):";
    for (const MetricComparison& m : noise->latency) {
      out += fmt::format(" {} mean {}, p99 {};", upper(m.name), pct(m.signed_pct[0]),
                         pct(m.signed_pct[3]));
    }
    for (const FigureComparison& f : noise->figures) {
      if (f.name == "makespan_s") out += fmt::format(" makespan {}", pct(f.signed_pct));
    }
    out += "\n";
  }
  return out;
}

}  // namespace tidal::validate
