#include "plan/slo_target.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "base/input_error.h"
#include "base/number_format.h"

namespace tidal::plan {
namespace {

constexpr double kSlack = 1e-12;

const sim::LatencySummary* latency_of(const std::string& name, const sim::RunMetrics& m,
                                      const sim::ClassMetrics* c) {
  if (name == "ttft") return c ? &c->ttft : &m.ttft;
  if (name == "tpot") return c ? &c->tpot : &m.tpot;
  if (name == "e2e") return c ? &c->e2e : &m.e2e;
  if (name == "itl" && c == nullptr) return &m.itl;
  if (name == "queue_delay" && c == nullptr) return &m.queue_delay;
  return nullptr;
}

std::optional<double> statistic(const std::string& stat, const sim::LatencySummary& s) {
  if (s.count == 0) return std::nullopt;
  if (stat == "mean") return s.mean;
  if (stat == "p50") return s.p50;
  if (stat == "p90") return s.p90;
  if (stat == "p99") return s.p99;
  return s.max;
}

bool is_latency_metric(const std::string& metric, bool per_class) {
  const size_t underscore = metric.find('_');
  if (underscore == std::string::npos) return false;
  const std::string stat = metric.substr(0, underscore);
  const std::string name = metric.substr(underscore + 1);
  const bool stat_ok =
      stat == "mean" || stat == "p50" || stat == "p90" || stat == "p99" || stat == "max";
  const bool name_ok = name == "ttft" || name == "tpot" || name == "e2e" ||
                       (!per_class && (name == "itl" || name == "queue_delay"));
  return stat_ok && name_ok;
}

std::string format_value(const SloTarget& t, double v) {
  if (t.metric == "attainment") return fmt::format("{:.4g}%", v * 100.0);
  if (t.metric == "goodput") return fmt::format("{:.4g} req/s", v);
  return fmt::format("{:.4g} s", v);
}

// The same for people (a failing target's reason): latencies below 1 s in ms, from 10,000 s in
// whole seconds with separators. The normalized text (format_value) stays as it was: it is part
// of a plan's fingerprint.
std::string readable_value(const SloTarget& t, double v) {
  if (t.metric == "attainment" || t.metric == "goodput") return format_value(t, v);
  if (v < 1.0) return fmt::format("{:.4g} ms", v * 1e3);
  if (v >= 1e4) return base::format_number(v, 0) + " s";
  return fmt::format("{:.4g} s", v);
}

}  // namespace

SloTarget parse_slo_target(const std::string& text) {
  auto fail = [&](const std::string& what) -> SloTarget {
    throw InputError(
        fmt::format("--slo \"{}\": {} (expected [CLASS:]METRIC<=VALUE or METRIC>=VALUE, e.g. "
                    "p99_ttft<=1s, interactive:p90_e2e<=30s, attainment>=99%)",
                    text, what));
  };
  SloTarget t;
  size_t op = text.find("<=");
  if (op == std::string::npos) {
    op = text.find(">=");
    if (op == std::string::npos) return fail("no <= or >=");
    t.upper_bound = false;
  }
  std::string lhs = text.substr(0, op);
  std::string rhs = text.substr(op + 2);
  const size_t colon = lhs.find(':');
  if (colon != std::string::npos) {
    t.slo_class = lhs.substr(0, colon);
    if (t.slo_class->empty()) return fail("empty SLO class before ':'");
    lhs = lhs.substr(colon + 1);
  }
  t.metric = lhs;
  double scale = 1.0;
  if (t.metric == "attainment") {
    if (t.upper_bound) return fail("attainment takes >=");
    if (rhs.ends_with("%")) {
      rhs.pop_back();
      scale = 0.01;
    }
  } else if (t.metric == "goodput") {
    if (t.upper_bound) return fail("goodput takes >=");
    if (rhs.ends_with("req/s")) rhs.resize(rhs.size() - 5);
  } else if (is_latency_metric(t.metric, t.slo_class.has_value())) {
    if (!t.upper_bound) return fail("latency metrics take <=");
    if (rhs.ends_with("ms")) {
      rhs.resize(rhs.size() - 2);
      scale = 1e-3;
    } else if (rhs.ends_with("s")) {
      rhs.pop_back();
    }
  } else {
    return fail(fmt::format("unknown metric \"{}\"", t.metric));
  }
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(rhs.data(), rhs.data() + rhs.size(), value);
  if (rhs.empty() || ec != std::errc() || ptr != rhs.data() + rhs.size() || !std::isfinite(value) ||
      value < 0) {
    return fail(fmt::format("\"{}\" is not a non-negative number", rhs));
  }
  t.value = value * scale;
  if (t.metric == "attainment" && t.value > 1.0) return fail("attainment is at most 100%");
  t.text = fmt::format("{}{}{}{}", t.slo_class ? *t.slo_class + ":" : "", t.metric,
                       t.upper_bound ? "<=" : ">=", format_value(t, t.value));
  return t;
}

std::optional<double> slo_value(const SloTarget& target, const sim::RunMetrics& metrics) {
  const sim::ClassMetrics* c = nullptr;
  if (target.slo_class) {
    for (const sim::ClassMetrics& m : metrics.classes) {
      if (m.name == *target.slo_class) c = &m;
    }
    if (c == nullptr) return std::nullopt;
  }
  if (target.metric == "attainment") return c ? c->slo_attainment : metrics.slo_attainment;
  if (target.metric == "goodput") return c ? c->goodput_rps : metrics.goodput_rps;
  const size_t underscore = target.metric.find('_');
  const sim::LatencySummary* s = latency_of(target.metric.substr(underscore + 1), metrics, c);
  if (s == nullptr) return std::nullopt;
  return statistic(target.metric.substr(0, underscore), *s);
}

bool bounds_itl(const std::vector<SloTarget>& targets) {
  return std::any_of(targets.begin(), targets.end(),
                     [](const SloTarget& t) { return t.metric.ends_with("_itl"); });
}

std::optional<std::string> slo_violation(const std::vector<SloTarget>& targets,
                                         const sim::RunMetrics& metrics) {
  for (const SloTarget& t : targets) {
    const std::optional<double> v = slo_value(t, metrics);
    const std::string name = (t.slo_class ? *t.slo_class + ":" : "") + t.metric;
    if (!v) return fmt::format("{} is undefined (no finished request)", name);
    // A relative 1e-12 slack so that "attainment>=99.9%" (0.9990000000000001 after the
    // percent conversion) accepts an attainment of exactly 0.999.
    const bool holds = t.upper_bound ? *v <= t.value * (1 + kSlack) : *v >= t.value * (1 - kSlack);
    if (!holds) {
      return fmt::format("{} = {} {} {}", name, readable_value(t, *v), t.upper_bound ? ">" : "<",
                         readable_value(t, t.value));
    }
  }
  return std::nullopt;
}

}  // namespace tidal::plan
