// The run folder written as the run goes (docs/run-output.md, "Written as the run goes"):
// a progress sink that opens the folder's temporary sibling before the run, writes
// requests.csv rows as requests end (sim/requests_csv.h) and, once the run is over, the rest
// of the files and summary.json, then swaps the folder into place. Destroyed before finish()
// (the run failed or was stopped), it removes the temporary folder: an earlier run in `dir`
// stays as it was and no file that looks whole is left.
//
// timeline.csv, trace.json and summary.json are written by finish(): a timeline row's dollars
// come from the billing ledger after the run, and the simulator keeps the rows for
// RunResult::timeline anyway (one per interval, not per request).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/run_folder.h"
#include "sim/metrics.h"
#include "sim/requests_csv.h"
#include "sim/scenario.h"
#include "sim/simulator.h"

namespace tidal::sim {

class RunOutputStream final : public ProgressSink {
 public:
  // InputError as base::RunFolderWriter's. Reports are passed on to `next` (the progress bar;
  // may be null), which also answers stop_requested(). `scenario` must outlive the stream.
  RunOutputStream(const std::string& dir, const Scenario& scenario, ProgressSink* next = nullptr);
  RunOutputStream(const RunOutputStream&) = delete;
  RunOutputStream& operator=(const RunOutputStream&) = delete;

  void update(const ProgressReport& report) override;
  bool stop_requested() const override { return next_ != nullptr && next_->stop_requested(); }

  // Writes what is left of the complete run `result` (not stopped early) and swaps the folder
  // into place. InputError when a file cannot be written; the folder is then unchanged.
  void finish(const RunResult& result, const RunMetrics& metrics);

  int64_t num_request_rows_written() const;

 private:
  // Opens requests.csv on first use.
  RequestsCsvWriter& requests_writer(int64_t num_requests);

  const Scenario& scenario_;
  ProgressSink* next_;
  base::RunFolderWriter folder_;
  std::unique_ptr<base::PendingFile> requests_file_;  // null without output.requests_csv
  std::optional<RequestsCsvWriter> requests_;         // writes into requests_file_ (declared
                                                      // after it, so destroyed first)
};

}  // namespace tidal::sim
