// One parser per trace format: turns a header and data lines into Requests. Errors are
// RowErrors; the reader adds file and line.
#pragma once

#include <memory>
#include <string_view>

#include "traces/format.h"
#include "traces/request.h"

namespace tidal::traces {

class RowParser {
 public:
  virtual ~RowParser() = default;
  // True when the first line is a header to give to parse_header() rather than a row.
  virtual bool has_header() const = 0;
  virtual void parse_header(std::string_view line) = 0;
  // False when the file gives no arrival times (a Vidur lengths-only file): every row at 0.
  virtual bool has_arrival_times() const { return true; }
  // Overwrites every field of `out` (reusing its buffers). Returns true when the row carried
  // its own id; otherwise the reader numbers rows. Throws base::RowError; a row that throws leaves
  // the parser's state (time order) as it was.
  virtual bool parse_row(std::string_view line, Request& out) = 0;
};

std::unique_ptr<RowParser> make_row_parser(TraceFormat format);

// Sets every field of `request` to its default, keeping vector and string capacity.
void reset_request(Request& request);

}  // namespace tidal::traces

namespace tidal::traces {

std::unique_ptr<RowParser> make_azure_parser();
std::unique_ptr<RowParser> make_burstgpt_parser();
std::unique_ptr<RowParser> make_vidur_parser();
std::unique_ptr<RowParser> make_mooncake_parser();
std::unique_ptr<RowParser> make_tidal_jsonl_parser();
std::unique_ptr<RowParser> make_tidal_csv_parser();

// Checks a tidal-format row's cross-field rules (arrival range, turn, prefix blocks vs prompt
// length, deps, think time); base::RowError naming the field.
void check_tidal_request(const Request& request);
// `bytes` when it lies in [0, base::kMaxWireBytes] (a request_bytes / response_bytes field); a
// RowError naming `field` otherwise.
int64_t checked_wire_bytes(int64_t bytes, std::string_view field);

}  // namespace tidal::traces
