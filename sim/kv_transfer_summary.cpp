#include "sim/kv_transfer_summary.h"

#include <fmt/format.h>

#include "base/number_format.h"
#include "sim/sample_set.h"
#include "traces/run_figures.h"

namespace tidal::sim {

namespace {

// The three waits of a hand-off over the requests handed off (seconds).
struct HandoffWaits {
  SampleSet wait;      // prefill done -> transfer start
  SampleSet transfer;  // transfer start -> landed
  SampleSet queue;     // landed -> first decode step
};

HandoffWaits handoff_waits(const RunResult& result) {
  HandoffWaits w;
  for (const HandoffRecord& r : result.handoffs) {
    if (r.transfer_end_ns < 0) continue;
    w.wait.add(static_cast<double>(r.transfer_start_ns - r.prefill_done_ns) * 1e-9);
    w.transfer.add(static_cast<double>(r.transfer_end_ns - r.transfer_start_ns) * 1e-9);
    if (r.decode_first_scheduled_ns >= 0) {
      w.queue.add(static_cast<double>(r.decode_first_scheduled_ns - r.transfer_end_ns) * 1e-9);
    }
  }
  return w;
}

}  // namespace

std::string format_kv_transfer_line(const Scenario& scenario, const RunResult& result) {
  if (scenario.kv_links.empty()) return "";
  int64_t num_transfers = 0;
  double bytes = 0.0;
  for (const fleet::KvLinkUsage& usage : result.kv_link_usage) {
    num_transfers += usage.num_transfers;
    bytes += usage.bytes;
  }
  HandoffWaits w = handoff_waits(result);
  const LatencySummary transfer = w.transfer.summarize();
  const LatencySummary wait = w.wait.summarize();
  const LatencySummary queue = w.queue.summarize();
  const auto ms = [](double s) { return base::format_number(s * 1e3, 2); };
  return fmt::format(
      "kv moved    {} transfers, {} GB   transfer mean {} ms p99 {} ms   wait for decode mean {} "
      "ms   decode queue mean {} ms\n",
      base::format_count(num_transfers), base::format_number(bytes / 1e9, 1), ms(transfer.mean),
      ms(transfer.p99), ms(wait.mean), ms(queue.mean));
}

nlohmann::ordered_json kv_transfer_summary_json(const Scenario& scenario, const RunResult& result) {
  using ojson = nlohmann::ordered_json;
  if (scenario.kv_links.empty()) return nullptr;
  ojson links = ojson::array();
  for (size_t l = 0; l < scenario.kv_links.size(); ++l) {
    const fleet::KvLinkSpec& spec = scenario.kv_links[l];
    const fleet::KvLinkUsage usage =
        l < result.kv_link_usage.size() ? result.kv_link_usage[l] : fleet::KvLinkUsage{};
    const double busy_s = static_cast<double>(usage.busy_ns) * 1e-9;
    ojson link{{"from", spec.from},
               {"to", spec.to},
               {"num_transfers", usage.num_transfers},
               {"bytes", usage.bytes},
               {"busy_s", busy_s}};
    link["mean_gb_per_s_while_busy"] =
        usage.busy_ns > 0 ? ojson(usage.bytes / static_cast<double>(usage.busy_ns)) : nullptr;
    links.push_back(link);
  }
  HandoffWaits w = handoff_waits(result);
  return ojson{{"links", links},
               {"decode_wait", traces::latency_summary_json(w.wait.summarize())},
               {"transfer", traces::latency_summary_json(w.transfer.summarize())},
               {"decode_queue", traces::latency_summary_json(w.queue.summarize())}};
}

}  // namespace tidal::sim
