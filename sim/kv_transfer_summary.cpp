#include "sim/kv_transfer_summary.h"

#include "sim/sample_set.h"
#include "traces/run_figures.h"

namespace tidal::sim {

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
  SampleSet wait;      // prefill done -> transfer start
  SampleSet transfer;  // transfer start -> landed
  SampleSet queue;     // landed -> first decode step
  for (const RequestRecord& r : result.records) {
    if (r.transfer_end_ns < 0) continue;
    wait.add(static_cast<double>(r.transfer_start_ns - r.prefill_done_ns) * 1e-9);
    transfer.add(static_cast<double>(r.transfer_end_ns - r.transfer_start_ns) * 1e-9);
    if (r.decode_first_scheduled_ns >= 0) {
      queue.add(static_cast<double>(r.decode_first_scheduled_ns - r.transfer_end_ns) * 1e-9);
    }
  }
  return ojson{{"links", links},
               {"decode_wait", traces::latency_summary_json(wait.summarize())},
               {"transfer", traces::latency_summary_json(transfer.summarize())},
               {"decode_queue", traces::latency_summary_json(queue.summarize())}};
}

}  // namespace tidal::sim
