// requests.csv (columns in docs/run-output.md), written in request order as requests end:
// a row goes out once its request and every request before it have finished or been rejected,
// formatted from the simulator's records (final by then, sim/simulator.h's ProgressReport).
// Rows of requests that end before an earlier one wait as one bit each until it ends, so the
// writer holds num_requests bits plus a buffer of at most 1 MiB of text; finish() writes the
// rest. The bytes equal a whole-file write after the run.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "sim/request_record.h"
#include "sim/scenario.h"
#include "sim/workload_loader.h"

namespace tidal::sim {

// The requests as the simulator holds them now; `pool_of_replica(r)` is replica r's pool.
struct RequestsView {
  const RequestTable& table;
  std::span<const RequestRecord> records;   // [num_requests] aligned with table.requests
  std::span<const HandoffRecord> handoffs;  // [num_requests] aligned too, or empty (none)
  std::function<int32_t(int32_t)> pool_of_replica;
};

class RequestsCsvWriter {
 public:
  // Writes the header to `out`, which must outlive the writer.
  RequestsCsvWriter(const Scenario& scenario, int64_t num_requests, std::ostream& out);

  // Marks `ended` (request indices whose records no longer change) and writes every row now
  // next in order.
  void add_ended(std::span<const int64_t> ended, const RequestsView& requests);
  // The run is over and every record final: writes the rows not written yet and flushes.
  void finish(const RequestsView& requests);

  int64_t num_rows_written() const { return next_; }

 private:
  void write_row(size_t i, const RequestsView& requests);

  const Scenario& scenario_;
  std::ostream& out_;
  std::vector<bool> ended_;  // [num_requests] ended and not yet written
  int64_t next_ = 0;         // the first request whose row is not written
  fmt::memory_buffer buf_;   // rows not yet handed to out_
};

}  // namespace tidal::sim
