#include "sim/run_output_stream.h"

#include "sim/run_output.h"

namespace tidal::sim {

RunOutputStream::RunOutputStream(const std::string& dir, const Scenario& scenario,
                                 ProgressSink* next)
    : scenario_(scenario), next_(next), folder_(dir) {}

RequestsCsvWriter& RunOutputStream::requests_writer(int64_t num_requests) {
  if (!requests_) {
    requests_file_ = folder_.open_file("requests.csv");
    requests_.emplace(scenario_, num_requests, requests_file_->stream());
  }
  return *requests_;
}

void RunOutputStream::update(const ProgressReport& report) {
  if (scenario_.output.requests_csv) {
    const Cluster& cluster = *report.cluster;
    requests_writer(static_cast<int64_t>(report.records.size()))
        .add_ended(report.newly_done, RequestsView{*report.table, report.records, report.handoffs,
                                                   [&cluster](int32_t replica) {
                                                     return cluster.replica(replica).pool();
                                                   }});
  }
  if (next_ != nullptr) next_->update(report);
}

void RunOutputStream::finish(const RunResult& result, const RunMetrics& metrics) {
  if (scenario_.output.requests_csv) {
    // Without reports (the run had no sink) every row is written here.
    requests_writer(static_cast<int64_t>(result.records.size())).finish(requests_view(result));
    folder_.commit_file("requests.csv", *requests_file_);
  }
  if (scenario_.output.timeline_csv) {
    folder_.write_file("timeline.csv", [&](std::ostream& out) { write_timeline_csv(result, out); });
  }
  if (scenario_.output.trace_json) {
    folder_.write_file("trace.json",
                       [&](std::ostream& out) { write_chrome_trace(scenario_, result, out); });
  }
  folder_.finish(summary_json(scenario_, result, metrics));
}

int64_t RunOutputStream::num_request_rows_written() const {
  return requests_ ? requests_->num_rows_written() : 0;
}

}  // namespace tidal::sim
