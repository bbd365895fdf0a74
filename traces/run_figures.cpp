#include "traces/run_figures.h"

#include <algorithm>
#include <cmath>

namespace tidal::traces {

using ojson = nlohmann::ordered_json;

int64_t nearest_rank_position(double p, int64_t n) {
  const auto k = static_cast<int64_t>(std::ceil(p / 100.0 * static_cast<double>(n)));
  return std::clamp<int64_t>(k, 1, n);
}

ojson latency_summary_json(const LatencySummary& s) {
  if (s.count == 0) {
    return ojson{{"count", 0},       {"mean_s", nullptr}, {"p50_s", nullptr},
                 {"p90_s", nullptr}, {"p99_s", nullptr},  {"max_s", nullptr}};
  }
  return ojson{{"count", s.count}, {"mean_s", s.mean}, {"p50_s", s.p50},
               {"p90_s", s.p90},   {"p99_s", s.p99},   {"max_s", s.max}};
}

ojson request_figures_json(const RequestFigures& f) {
  ojson rejections = ojson::object();
  for (const auto& [reason, count] : f.rejections) rejections[reason] = count;
  return ojson{{"duration_s", f.duration_s},
               {"num_requests", f.num_requests},
               {"num_finished", f.num_finished},
               {"num_rejected", f.num_rejected},
               {"rejections", rejections},
               {"num_input_tokens", f.num_input_tokens},
               {"num_output_tokens", f.num_output_tokens},
               {"num_preemptions", f.num_preemptions},
               {"num_prefix_hit_tokens", f.num_prefix_hit_tokens},
               {"request_throughput_rps", f.request_throughput_rps},
               {"input_tokens_per_s", f.input_tokens_per_s},
               {"output_tokens_per_s", f.output_tokens_per_s},
               {"ttft", latency_summary_json(f.ttft)},
               {"tpot", latency_summary_json(f.tpot)},
               {"itl", latency_summary_json(f.itl)},
               {"e2e", latency_summary_json(f.e2e)},
               {"queue_delay", latency_summary_json(f.queue_delay)}};
}

}  // namespace tidal::traces
