// Writers for tidal's own trace formats (JSONL: every Request field, lossless; CSV: the same
// fields as columns). Column and key names: docs/traces.md.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/output_files.h"
#include "traces/format.h"
#include "traces/request.h"

namespace tidal::traces {

void write_jsonl(const std::vector<Request>& requests, std::ostream& out);
void write_csv(const std::vector<Request>& requests, std::ostream& out);

// One row without its line break appended to `out` (for streaming writers).
void append_jsonl_row(const Request& request, std::string& out);
void append_csv_row(const Request& request, std::string& out);
// The tidal CSV header line, without its line break.
std::string_view csv_header();

// tidal_jsonl for ".jsonl", tidal_csv for ".csv"; InputError for any other extension.
TraceFormat output_format_for_path(const std::string& path);

// Streams requests into a file in the format its extension names ("-" writes JSONL to stdout).
// The file appears only when close() succeeds (base::PendingFile): until then the rows go to a
// temporary beside it, so a failed conversion leaves the previous file, never a truncated one.
class TraceWriter {
 public:
  explicit TraceWriter(const std::string& path);
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  ~TraceWriter();
  void write(const Request& request);
  // Flushes and moves the file into place; InputError if it cannot be written. Without it
  // (an exception, a bad row) the destructor discards what was written.
  void close();

 private:
  void flush_buffer();
  std::string path_;
  TraceFormat format_;
  std::optional<base::PendingFile> file_;  // empty for stdout
  bool closed_ = false;
  std::string buffer_;  // pending rows, flushed in chunks
};

// Writes all requests to `path` (format from the extension).
void write_trace(const std::string& path, const std::vector<Request>& requests);

// Writes `text` to `path` as a whole ("-" is stdout); InputError when it cannot.
void write_text_file(const std::string& path, std::string_view text);

}  // namespace tidal::traces
