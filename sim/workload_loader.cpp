#include "sim/workload_loader.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "base/input_error.h"
#include "base/limits.h"
#include "traces/dag.h"
#include "traces/generators.h"
#include "traces/reader.h"

namespace tidal::sim {
namespace {

// InputError naming the workload's length_scale when the scaled length passes base::kMaxTokens.
int64_t scale_length(int64_t tokens, double scale, const std::string& where, int64_t id) {
  if (scale == 1.0) return tokens;
  const double scaled = static_cast<double>(tokens) * scale;
  if (scaled > static_cast<double>(base::kMaxTokens)) {
    throw InputError(
        fmt::format("{}.length_scale: request {} would have {:g} tokens, beyond the "
                    "limit of {} per request",
                    where, id, scaled, base::kMaxTokens));
  }
  return std::max<int64_t>(1, std::llround(scaled));
}

std::vector<Request> read_workload(const Scenario& s, size_t index) {
  const WorkloadSpec& w = s.workloads[index];
  const std::string where = fmt::format("{}: workloads[{}]", s.file, index);
  if (w.generator) {
    return traces::generate(*w.generator, w.seed, where + ".generator", s.base_dir);
  }
  traces::ReadOptions options;
  options.format = w.trace->format;
  try {
    std::vector<Request> requests = traces::read_trace(w.trace->resolved_path, options);
    if (requests.empty()) {
      throw InputError(fmt::format("{}: no requests (a header and no rows)", w.trace->path));
    }
    return requests;
  } catch (const InputError& e) {  // the reader names the trace file, not the scenario key
    throw InputError(fmt::format("{}.trace.path: {}", where, e.what()));
  }
}

// Scales arrivals, think times and lengths, sets tenant, class and the class's priority (where
// the trace gave none). InputError naming the workload (`where`) when a scaled arrival or think
// time passes base::kMaxArrivalS.
void shape_workload(const WorkloadSpec& w, const std::map<std::string, int32_t>& priorities,
                    const std::string& where, std::vector<Request>& requests) {
  const auto class_priority = priorities.find(w.slo_class);
  for (Request& r : requests) {
    r.arrival_s = w.start_s + r.arrival_s * w.time_scale / w.rate_scale;
    r.think_time_s = r.think_time_s * w.time_scale / w.rate_scale;
    if (!(r.arrival_s <= base::kMaxArrivalS && r.think_time_s <= base::kMaxArrivalS)) {
      throw InputError(fmt::format(
          "{}: request {} arrives at {:g} s, think time {:g} s, after start_s, time_scale and "
          "rate_scale; both must stay at most {:g} s",
          where, r.id, r.arrival_s, r.think_time_s, base::kMaxArrivalS));
    }
    r.prompt_tokens = scale_length(r.prompt_tokens, w.length_scale, where, r.id);
    r.output_tokens = scale_length(r.output_tokens, w.length_scale, where, r.id);
    if (w.length_scale != 1.0 && r.prefix_block_tokens > 0) {
      // Hashes cover whole source blocks; keep those the scaled prompt still fills.
      const auto num_covered = static_cast<size_t>((r.prompt_tokens + r.prefix_block_tokens - 1) /
                                                   r.prefix_block_tokens);
      if (r.prefix_blocks.size() > num_covered) r.prefix_blocks.resize(num_covered);
    }
    if (w.tenant) {
      r.tenant = *w.tenant;
    } else if (r.tenant.empty()) {
      r.tenant = "default";
    }
    r.slo_class = w.slo_class;
    if (!r.priority && class_priority != priorities.end()) r.priority = class_priority->second;
  }
}

// kept[i] = arrival before the cutoff and every dep kept. Deps name ids of the same workload.
std::vector<char> cut_at_duration(const Scenario& s, const std::vector<Request>& requests,
                                  const std::unordered_map<int64_t, size_t>& position_of_id) {
  std::vector<char> kept(requests.size(), 1);  // [num_requests]
  if (s.duration_s) {
    for (size_t i = 0; i < requests.size(); ++i) kept[i] = requests[i].arrival_s < *s.duration_s;
  }
  if (position_of_id.empty()) return kept;
  // The graph is acyclic (checked), so this settles in at most depth passes.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < requests.size(); ++i) {
      if (!kept[i]) continue;
      for (int64_t dep : requests[i].deps) {
        if (!kept[position_of_id.at(dep)]) {
          kept[i] = 0;
          changed = true;
          break;
        }
      }
    }
  }
  return kept;
}

// The kept requests of every workload end to end, in workload order. The only workload's own
// buffer is reused, and every other workload's vector is freed once moved, so that a trace is
// never held twice.
std::vector<Request> concatenate_kept(std::vector<std::vector<Request>>& per_workload,
                                      const std::vector<std::vector<char>>& kept, size_t num_kept) {
  std::vector<Request> all;  // [num_kept]
  if (per_workload.size() == 1) {
    all = std::move(per_workload[0]);
    size_t next = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      if (!kept[0][i]) continue;
      if (next != i) all[next] = std::move(all[i]);
      ++next;
    }
    all.erase(all.begin() + static_cast<std::ptrdiff_t>(next), all.end());
    return all;
  }
  all.reserve(num_kept);
  for (size_t w = 0; w < per_workload.size(); ++w) {
    for (size_t i = 0; i < per_workload[w].size(); ++i) {
      if (kept[w][i]) all.push_back(std::move(per_workload[w][i]));
    }
    std::vector<Request>().swap(per_workload[w]);
  }
  return all;
}

// Reorders `values` in place so that values[k] becomes the old values[source[k]]; `source` is a
// permutation of [0, values.size()) and is consumed (left as the identity).
void permute_in_place(std::vector<Request>& values, std::vector<int64_t>& source) {
  for (size_t start = 0; start < values.size(); ++start) {
    if (source[start] == static_cast<int64_t>(start)) continue;
    Request held = std::move(values[start]);
    size_t at = start;
    while (source[at] != static_cast<int64_t>(start)) {
      const auto from = static_cast<size_t>(source[at]);
      values[at] = std::move(values[from]);
      source[at] = static_cast<int64_t>(at);
      at = from;
    }
    values[at] = std::move(held);
    source[at] = static_cast<int64_t>(at);
  }
}

}  // namespace

RequestTable load_workloads(const Scenario& s) {
  struct Entry {
    double arrival_s;
    int32_t workload;
    int64_t position;  // in its workload
  };
  std::vector<std::vector<Request>> per_workload(s.workloads.size());
  std::vector<std::unordered_map<int64_t, size_t>> position_of_id(s.workloads.size());
  std::vector<std::vector<char>> kept(s.workloads.size());  // [num_workloads][num_source_requests]
  std::vector<Entry> entries;
  RequestTable table;
  for (size_t w = 0; w < s.workloads.size(); ++w) {
    std::vector<Request>& requests = per_workload[w];
    requests = read_workload(s, w);
    table.num_source_requests.push_back(static_cast<int64_t>(requests.size()));
    const bool has_deps = std::any_of(requests.begin(), requests.end(),
                                      [](const Request& r) { return !r.deps.empty(); });
    if (has_deps) {
      try {
        traces::analyze_dag(requests);
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: workloads[{}]: {}", s.file, w, e.what()));
      }
      for (size_t i = 0; i < requests.size(); ++i) position_of_id[w][requests[i].id] = i;
    }
    shape_workload(s.workloads[w], s.priorities, fmt::format("{}: workloads[{}]", s.file, w),
                   requests);
    kept[w] = cut_at_duration(s, requests, position_of_id[w]);
    for (size_t i = 0; i < requests.size(); ++i) {
      if (kept[w][i]) {
        entries.push_back(
            Entry{requests[i].arrival_s, static_cast<int32_t>(w), static_cast<int64_t>(i)});
      }
    }
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.arrival_s != b.arrival_s) return a.arrival_s < b.arrival_s;
    if (a.workload != b.workload) return a.workload < b.workload;
    return a.position < b.position;
  });

  // New id of (workload, position), for renumbering deps.
  std::vector<std::vector<int64_t>> new_id(s.workloads.size());
  for (size_t w = 0; w < s.workloads.size(); ++w) new_id[w].assign(per_workload[w].size(), -1);
  for (size_t k = 0; k < entries.size(); ++k) {
    new_id[static_cast<size_t>(entries[k].workload)][static_cast<size_t>(entries[k].position)] =
        static_cast<int64_t>(k);
  }

  const size_t n = entries.size();
  {
    // The kept requests end to end in workload order are the c-th; the k-th of the table is the
    // source[k]-th of them.
    std::vector<int64_t> source(n);  // [num_requests]
    int64_t c = 0;
    for (size_t w = 0; w < kept.size(); ++w) {
      for (size_t i = 0; i < kept[w].size(); ++i) {
        if (kept[w][i]) source[static_cast<size_t>(new_id[w][i])] = c++;
      }
    }
    table.requests = concatenate_kept(per_workload, kept, n);
    permute_in_place(table.requests, source);
  }
  table.arrival_ns.reserve(n);
  table.workload.reserve(n);
  table.slo_class.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    const auto w = static_cast<size_t>(entries[k].workload);
    Request& r = table.requests[k];
    r.id = static_cast<int64_t>(k);
    for (int64_t& dep : r.deps) dep = new_id[w][position_of_id[w].at(dep)];
    table.arrival_ns.push_back(std::llround(r.arrival_s * 1e9));
    table.workload.push_back(entries[k].workload);
    const auto cls = std::find_if(s.slo_classes.begin(), s.slo_classes.end(),
                                  [&](const SloClass& c) { return c.name == r.slo_class; });
    table.slo_class.push_back(static_cast<int32_t>(cls - s.slo_classes.begin()));
  }
  return table;
}

}  // namespace tidal::sim
