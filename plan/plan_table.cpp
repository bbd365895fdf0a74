#include "plan/plan_table.h"

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "base/number_format.h"

namespace tidal::plan {
namespace {

struct Column {
  std::string header;
  bool right = true;  // numbers right-aligned, text left-aligned
};

std::string render(const std::vector<Column>& columns,
                   const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) width[c] = columns[c].header.size();
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t c = 0; c < cells.size(); ++c) {
      const bool last = c + 1 == cells.size();
      const std::string pad(width[c] - cells[c].size(), ' ');
      if (c > 0) text += "  ";
      if (columns[c].right) {
        text += pad + cells[c];
      } else {
        text += cells[c];
        if (!last) text += pad;
      }
    }
    return text + "\n";
  };
  std::vector<std::string> headers;
  for (const Column& c : columns) headers.push_back(c.header);
  std::string text = line(headers);
  for (const auto& row : rows) text += line(row);
  return text;
}

std::string dollars(const std::optional<double>& v) {
  return v ? base::format_dollars(*v) : "n/a";
}

std::string ms(const std::optional<double>& seconds) {
  return seconds ? base::format_significant(*seconds * 1e3) : "n/a";
}

std::string latency_name(const std::string& metric) {
  if (metric == "p99_tpot_s") return "p99 TPOT";
  if (metric == "p99_e2e_s") return "p99 E2E";
  return "p99 TTFT";
}

bool is_cost_mode(const PlanOutcome& o) {
  return o.objective == "dollars";
}

std::string slo_list(const PlanHeader& header) {
  std::string text;
  for (const std::string& s : header.slo) text += (text.empty() ? "" : " and ") + s;
  return text;
}

std::string replicas_text(int32_t n) {
  return fmt::format("{} replica{}", n, n == 1 ? "" : "s");
}

// "2 x H100-SXM (TP 1, 2 replicas, bf16)"; the fleet's total when other pools add GPUs.
// Disaggregated: "20 x H100-SXM (prefill 2 replicas TP 4, decode 3 replicas TP 4, fp8)".
std::string fleet_text(const CandidateResult& r) {
  if (r.roles) {
    const RoleSetups& roles = *r.roles;
    std::string text =
        fmt::format("{} x {} (prefill {} TP {}, decode {} TP {}, {})", roles.num_gpus(),
                    r.setup.gpu, replicas_text(roles.prefill.num_replicas), roles.prefill.tp,
                    replicas_text(roles.decode.num_replicas), roles.decode.tp, dtype_text(r.setup));
    if (r.num_gpus && *r.num_gpus != roles.num_gpus()) {
      text += fmt::format(", {} GPUs with the other pools", base::format_count(*r.num_gpus));
    }
    return text;
  }
  const std::string stages = r.setup.pp > 1 ? fmt::format(" x PP {}", r.setup.pp) : "";
  std::string text = fmt::format("{} x {} (TP {}{}, {} replica{}, {})", r.setup.num_gpus(),
                                 r.setup.gpu, r.setup.tp, stages, r.setup.num_replicas,
                                 r.setup.num_replicas == 1 ? "" : "s", dtype_text(r.setup));
  if (r.num_gpus && *r.num_gpus != r.setup.num_gpus()) {
    text += fmt::format(", {} GPUs with the other pools", base::format_count(*r.num_gpus));
  }
  return text;
}

std::string figures_text(const PlanOutcome& o, const CandidateResult& r) {
  std::string text = fmt::format("at {}/h, {}/day at the trace's rate", dollars(r.dollars_per_hour),
                                 dollars(r.dollars_per_day));
  if (is_cost_mode(o)) {
    text += fmt::format(" ({} for the trace)", dollars(r.dollars));
  } else {
    text +=
        fmt::format(" ({} per 1M tokens at {}x the trace's rate)", dollars(r.dollars_per_1m_tokens),
                    r.rate_scale ? base::format_significant(*r.rate_scale) : "n/a");
  }
  text += fmt::format("; SLO attainment {}, p99 TTFT {} ms, p99 TPOT {} ms",
                      r.slo_attainment ? base::format_percent(*r.slo_attainment) : "n/a",
                      ms(r.p99_ttft_s), ms(r.p99_tpot_s));
  return text;
}

}  // namespace

std::string dtype_text(const PoolSetup& setup) {
  if (setup.kv_dtype == setup.weight_dtype) return setup.weight_dtype;
  return setup.weight_dtype + " (kv " + setup.kv_dtype + ")";
}

std::string plan_table_text(const PlanOutcome& o, size_t max_rows) {
  // A disaggregated layout shows each role's replicas and TP instead of the varied pool's.
  const bool disaggregated = !o.results.empty() && o.results.front().roles.has_value();
  std::vector<Column> columns{{"rank"}, {"candidate", false}, {"GPU", false}, {"GPUs"}};
  if (disaggregated) {
    for (const char* c : {"P rep", "P TP", "D rep", "D TP"}) columns.push_back({c});
  } else {
    columns.push_back({"TP"});
    columns.push_back({"replicas"});
  }
  for (const char* c : {"dtype", "$/h", "$/day"}) columns.push_back({c, c[0] == '$'});
  if (is_cost_mode(o)) {
    columns.push_back({"$ trace"});
  } else {
    columns.push_back({"$/1M tok"});
    columns.push_back({"rate scale"});
  }
  for (const char* c : {"SLO attainment", "p99 TTFT ms", "p99 TPOT ms"}) columns.push_back({c});
  columns.push_back({"SLO", false});

  // Up to 5 rows are kept for candidates missing the SLO, so the closest misses show too.
  size_t num_feasible = 0, num_missed = 0;
  for (const CandidateResult& r : o.results) {
    num_feasible += r.status == "feasible";
    num_missed += r.status == "slo_missed";
  }
  const size_t shown_feasible =
      std::min(num_feasible, max_rows - std::min({num_missed, size_t{5}, max_rows}));
  const size_t shown_missed = std::min(num_missed, max_rows - shown_feasible);
  std::vector<std::vector<std::string>> rows;
  size_t num_rows_feasible = 0, num_rows_missed = 0;
  for (size_t i : o.ranking) {
    const CandidateResult& r = o.results[i];
    if (r.status == "invalid") continue;
    size_t& taken = r.status == "feasible" ? num_rows_feasible : num_rows_missed;
    if (taken >= (r.status == "feasible" ? shown_feasible : shown_missed)) continue;
    ++taken;
    std::vector<std::string> row{o.rank[i] ? fmt::format("{}", *o.rank[i]) : "-", r.name,
                                 r.setup.gpu, r.num_gpus ? base::format_count(*r.num_gpus) : "n/a"};
    if (r.roles) {
      for (const PoolSetup* role : {&r.roles->prefill, &r.roles->decode}) {
        row.push_back(fmt::format("{}", role->num_replicas));
        row.push_back(fmt::format("{}", role->tp));
      }
    } else {
      row.push_back(r.setup.pp > 1 ? fmt::format("{}x{}", r.setup.tp, r.setup.pp)
                                   : fmt::format("{}", r.setup.tp));
      row.push_back(fmt::format("{}", r.setup.num_replicas));
    }
    row.push_back(dtype_text(r.setup));
    row.push_back(dollars(r.dollars_per_hour));
    row.push_back(dollars(r.dollars_per_day));
    if (is_cost_mode(o)) {
      row.push_back(dollars(r.dollars));
    } else {
      row.push_back(dollars(r.dollars_per_1m_tokens));
      row.push_back(r.rate_scale ? base::format_significant(*r.rate_scale) + "x" : "n/a");
    }
    row.push_back(r.slo_attainment ? base::format_percent(*r.slo_attainment) : "n/a");
    row.push_back(ms(r.p99_ttft_s));
    row.push_back(ms(r.p99_tpot_s));
    row.push_back(r.status == "feasible" ? "met" : "missed: " + r.reason);
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return "no candidate was simulated\n";
  std::string text = render(columns, rows);
  if (num_feasible > shown_feasible || num_missed > shown_missed) {
    text += fmt::format("... and {} more meeting the SLO, {} more missing it: plan.csv\n",
                        base::format_count(static_cast<int64_t>(num_feasible - shown_feasible)),
                        base::format_count(static_cast<int64_t>(num_missed - shown_missed)));
  }
  return text;
}

std::string plan_winner_text(const PlanHeader& header, const PlanOutcome& o) {
  if (!o.cheapest) {
    std::string text = fmt::format("winner: none: no candidate meets {}", slo_list(header));
    for (size_t i : o.ranking) {
      const CandidateResult& r = o.results[i];
      if (r.status != "slo_missed") continue;
      text += fmt::format("; the cheapest simulated, {}, misses it ({})", r.name, r.reason);
      break;
    }
    return text + "\n";
  }
  const CandidateResult& r = o.results[*o.cheapest];
  return fmt::format("winner: {}: {} {}; meets {}\n", r.name, fleet_text(r), figures_text(o, r),
                     slo_list(header));
}

std::string plan_invalid_text(const PlanOutcome& o, size_t max_rows) {
  std::vector<const CandidateResult*> invalid;
  for (size_t i : o.ranking) {
    if (o.results[i].status == "invalid") invalid.push_back(&o.results[i]);
  }
  if (invalid.empty()) return "";
  std::string text = fmt::format("invalid ({}):\n", invalid.size());
  for (size_t k = 0; k < invalid.size() && k < max_rows; ++k) {
    text += fmt::format("  {}: {}\n", invalid[k]->name, invalid[k]->reason);
  }
  if (invalid.size() > max_rows) {
    text += fmt::format("  ... {} more in plan.csv\n", invalid.size() - max_rows);
  }
  return text;
}

std::string plan_frontier_text(const PlanOutcome& o) {
  std::string text = fmt::format(
      "Pareto frontier ({} vs {}, cheapest first): ", is_cost_mode(o) ? "$ trace" : "$/1M tok",
      latency_name(o.latency_metric));
  if (o.frontier.empty()) return text + "none\n";
  for (size_t k = 0; k < o.frontier.size(); ++k) {
    text += (k == 0 ? "" : ", ") + o.results[o.frontier[k]].name;
  }
  return text + "\n";
}

}  // namespace tidal::plan
