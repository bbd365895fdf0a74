#include "traces/reader.h"

#include <algorithm>
#include <utility>

#include "base/field_parse.h"
#include "base/input_error.h"
#include "base/line_source.h"
#include "base/row_error.h"
#include "traces/row_parser.h"

namespace tidal::traces {
namespace {

// A header names a few columns; a row holds at most a long list of prefix hashes. Longer lines
// are refused before they are parsed (parsing one 200 MB line takes tens of seconds).
constexpr size_t kMaxHeaderBytes = size_t{1} << 16;
constexpr size_t kMaxRowBytes = size_t{1} << 24;

}  // namespace

struct TraceReader::Impl {
  std::string name;  // the path (or given name) errors start with
  ReadOptions options;
  std::unique_ptr<base::LineSource> source;
  std::unique_ptr<RowParser> parser;
  TraceFormat format = TraceFormat::tidal_jsonl;
  ReadReport report;
  std::string pending_row;  // a first line that is data, not header (JSONL formats)
  bool has_pending_row = false;

  // "file:line: field: what"; a field name from the row itself (a JSONL key may hold a newline
  // or other control bytes) is quoted with those bytes escaped, so the message stays one line.
  std::string locate(int64_t line_number, const base::RowError& error) const {
    const std::string_view field = error.field();
    const bool printable = std::all_of(field.begin(), field.end(), [](char c) {
      return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
    });
    return name + ":" + std::to_string(line_number) + ": " +
           (printable ? std::string(field) : base::quote_for_message(field)) + ": " + error.what();
  }

  // Reads the first non-blank line: detects the format and takes the header.
  void start() {
    std::string_view line;
    while (source->next_line(line)) {
      if (!base::trim_blanks(line).empty()) break;
    }
    if (base::trim_blanks(line).empty())
      throw InputError(name + ": empty file (no header and no rows)");
    // JSONL files start with a row, the CSV formats with a header.
    const size_t max_bytes =
        base::trim_blanks(line).starts_with('{') ? kMaxRowBytes : kMaxHeaderBytes;
    if (line.size() > max_bytes) {
      throw InputError(name + ":" + std::to_string(source->line_number()) + ": first line of " +
                       std::to_string(line.size()) + " bytes, longer than the limit of " +
                       std::to_string(max_bytes) + " for a header or a JSONL row");
    }
    format = options.format ? *options.format
                            : detect_format_from_first_line(line, name, source->line_number());
    parser = make_row_parser(format);
    if (parser->has_header()) {
      try {
        parser->parse_header(line);
      } catch (const base::RowError& error) {
        throw InputError(locate(source->line_number(), error) + " (in the " +
                         std::string(format_name(format)) + " header)");
      }
      report.no_arrival_times = !parser->has_arrival_times();
    } else {
      pending_row.assign(line);
      has_pending_row = true;
    }
  }

  bool next(Request& out) {
    while (true) {
      std::string_view line;
      if (has_pending_row) {
        line = pending_row;
        has_pending_row = false;
      } else if (!source->next_line(line)) {
        return false;
      }
      if (base::trim_blanks(line).empty()) continue;
      try {
        if (line.size() > kMaxRowBytes) {
          throw base::RowError("row", std::to_string(line.size()) +
                                          " bytes, longer than the limit of " +
                                          std::to_string(kMaxRowBytes) + " per row");
        }
        const bool carried_id = parser->parse_row(line, out);
        if (!carried_id) out.id = report.num_rows;
        ++report.num_rows;
        return true;
      } catch (const base::RowError& error) {
        std::string message = locate(source->line_number(), error);
        if (!options.skip_bad) throw InputError(message);
        ++report.num_skipped;
        report.skipped.push_back(std::move(message));
      }
    }
  }
};

TraceReader::TraceReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TraceReader::TraceReader(const std::string& path, const ReadOptions& options)
    : impl_(std::make_unique<Impl>()) {
  impl_->name = path;
  impl_->options = options;
  impl_->source = base::LineSource::open_file(path);
  impl_->start();
}

TraceReader TraceReader::from_text(std::string text, const std::string& name,
                                   const ReadOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->name = name;
  impl->options = options;
  impl->source = base::LineSource::from_text(std::move(text));
  impl->start();
  return TraceReader(std::move(impl));
}

TraceReader::TraceReader(TraceReader&&) noexcept = default;
TraceReader& TraceReader::operator=(TraceReader&&) noexcept = default;
TraceReader::~TraceReader() = default;

bool TraceReader::next(Request& out) {
  return impl_->next(out);
}
const ReadReport& TraceReader::report() const {
  return impl_->report;
}
TraceFormat TraceReader::format() const {
  return impl_->format;
}

double TraceReader::fraction_read() const {
  const int64_t total = impl_->source->total_bytes();
  if (total <= 0) return 0.0;
  return std::min(
      1.0, static_cast<double>(impl_->source->bytes_returned()) / static_cast<double>(total));
}

namespace {

// Rows read before the output is sized from the bytes they took.
constexpr size_t kRowsBeforeReserve = 1024;

std::vector<Request> read_all(TraceReader& reader, ReadReport* report) {
  std::vector<Request> requests;  // [num_rows]
  Request request;
  while (reader.next(request)) {
    requests.push_back(std::move(request));
    if (requests.size() == kRowsBeforeReserve && reader.fraction_read() > 0.0) {
      // Growing a vector of Requests step by step costs more than parsing them.
      const double estimate = static_cast<double>(requests.size()) / reader.fraction_read();
      requests.reserve(static_cast<size_t>(estimate * 1.05) + kRowsBeforeReserve);
    }
  }
  if (report != nullptr) *report = reader.report();
  return requests;
}

}  // namespace

bool trace_has_arrival_times(const std::string& path, const ReadOptions& options) {
  return !TraceReader(path, options).report().no_arrival_times;
}

std::vector<Request> read_trace(const std::string& path, const ReadOptions& options,
                                ReadReport* report) {
  TraceReader reader(path, options);
  return read_all(reader, report);
}

std::vector<Request> read_trace_text(std::string text, const std::string& name,
                                     const ReadOptions& options, ReadReport* report) {
  TraceReader reader = TraceReader::from_text(std::move(text), name, options);
  return read_all(reader, report);
}

}  // namespace tidal::traces
