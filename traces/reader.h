// Streaming trace readers: one row at a time, constant memory per row, errors that name
// file:line: field. read_trace() collects a whole file. Formats and rules: docs/traces.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "traces/format.h"
#include "traces/request.h"

namespace tidal::traces {

struct ReadOptions {
  std::optional<TraceFormat> format;  // empty: detect from the first line
  bool skip_bad = false;              // true: skip bad rows and report them instead of throwing
};

struct ReadReport {
  int64_t num_rows = 0;              // requests returned
  int64_t num_skipped = 0;           // bad rows skipped (only with skip_bad)
  std::vector<std::string> skipped;  // [num_skipped] one "file:line: field: what" per row
  // The file gives no arrival times (a lengths-only file, docs/traces.md): every request
  // arrives at t = 0.
  bool no_arrival_times = false;
};

class TraceReader {
 public:
  // Opens `path`; InputError if it is missing, a directory, empty or of unknown format.
  TraceReader(const std::string& path, const ReadOptions& options);
  // Reads `text` as if it were a file called `name` (tests, fuzzing, stdin).
  static TraceReader from_text(std::string text, const std::string& name,
                               const ReadOptions& options);
  TraceReader(TraceReader&&) noexcept;
  TraceReader& operator=(TraceReader&&) noexcept;
  ~TraceReader();

  // Fills `out` with the next request; false at end of file. Throws InputError on a bad row
  // unless skip_bad is set.
  bool next(Request& out);
  const ReadReport& report() const;
  TraceFormat format() const;
  // Share of the input's bytes read so far, in [0, 1] (0 when the size is unknown): for
  // progress display and for sizing the output.
  double fraction_read() const;

 private:
  struct Impl;
  explicit TraceReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Whether `path` gives arrival times (false: a lengths-only file, every request at t = 0).
// Reads only the header; InputError as TraceReader's constructor.
bool trace_has_arrival_times(const std::string& path, const ReadOptions& options = {});

// The whole file. `report`, when given, receives the row and skip counts.
std::vector<Request> read_trace(const std::string& path, const ReadOptions& options = {},
                                ReadReport* report = nullptr);
std::vector<Request> read_trace_text(std::string text, const std::string& name,
                                     const ReadOptions& options = {}, ReadReport* report = nullptr);

}  // namespace tidal::traces
