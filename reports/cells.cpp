#include "reports/cells.h"

#include <fmt/format.h>

#include "reports/format.h"

namespace tidal::reports {
namespace {

Cell optional_cell(const std::optional<double>& value, std::string (*format)(double)) {
  if (!value) return Cell{"n/a", nullptr};
  return number_cell(*value, format(*value));
}

}  // namespace

Cell count_cell(int64_t value) {
  return Cell{format_count(value), value};
}
Cell latency_cell(const std::optional<double>& s) {
  return optional_cell(s, format_latency);
}
Cell dollars_cell(const std::optional<double>& d) {
  return optional_cell(d, format_dollars);
}
Cell percent_cell(const std::optional<double>& s) {
  return optional_cell(s, format_percent);
}
Cell ratio_cell(const std::optional<double>& r) {
  return optional_cell(r, format_ratio);
}
Cell significant_cell(const std::optional<double>& v) {
  return optional_cell(v, format_significant);
}
Cell rate_cell(double per_second, const std::string& unit) {
  return number_cell(per_second, format_rate(per_second, unit));
}

std::string slo_text(const ClassFigures& c) {
  std::string text;
  auto add = [&](const char* name, const std::optional<double>& bound) {
    if (!bound) return;
    if (!text.empty()) text += ", ";
    text += std::string(name) + " <= " + format_latency(*bound);
  };
  add("TTFT", c.slo_ttft_s);
  add("TPOT", c.slo_tpot_s);
  add("E2E", c.slo_e2e_s);
  return text.empty() ? "none" : text;
}

double dollars_per_day(const RunSummary& s) {
  return s.duration_s > 0 ? s.dollars / s.duration_s * 86400.0 : 0.0;
}

std::string joined_names(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::string cost_per_day_label(const RunSummary& s) {
  if (s.duration_s >= 3600.0) return "cost per day (this rate)";
  if (s.duration_s >= 600.0) {
    return fmt::format("cost per day (extrapolated from a {:.0f}-minute run)", s.duration_s / 60.0);
  }
  return fmt::format("cost per day (extrapolated from a {:.0f}-second run)", s.duration_s);
}

std::optional<double> tokens_per_dollar(const RunSummary& s) {
  if (!(s.dollars > 0)) return std::nullopt;
  return static_cast<double>(s.num_input_tokens + s.num_output_tokens) / s.dollars;
}

std::optional<double> output_tokens_per_dollar(const RunSummary& s) {
  if (!(s.dollars > 0)) return std::nullopt;
  return static_cast<double>(s.num_output_tokens) / s.dollars;
}

std::optional<double> idle_share(const TimelineRows& t) {
  double dollars = 0.0, busy = 0.0;
  for (size_t i = 0; i < t.size(); ++i) {
    dollars += t.dollars[i];
    busy += t.dollars[i] * t.utilization[i];
  }
  if (!(dollars > 0)) return std::nullopt;
  return 1.0 - busy / dollars;
}

}  // namespace tidal::reports
