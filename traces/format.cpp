#include "traces/format.h"

#include <string>

#include "base/csv_split.h"
#include "base/field_parse.h"
#include "base/input_error.h"
#include "base/line_source.h"
#include "base/row_error.h"

namespace tidal::traces {
namespace {

std::string accepted_names() {
  std::string names;
  for (const TraceFormat format : all_formats()) {
    if (!names.empty()) names += ", ";
    names += format_name(format);
  }
  return names;
}

bool has_column(const base::CsvColumns& columns, std::string_view name) {
  return columns.find(name) >= 0;
}

}  // namespace

const std::vector<TraceFormat>& all_formats() {
  static const std::vector<TraceFormat> kFormats = {
      TraceFormat::azure, TraceFormat::mooncake,    TraceFormat::burstgpt,
      TraceFormat::vidur, TraceFormat::tidal_jsonl, TraceFormat::tidal_csv};
  return kFormats;
}

std::string_view format_name(TraceFormat format) {
  switch (format) {
    case TraceFormat::azure:
      return "azure";
    case TraceFormat::mooncake:
      return "mooncake";
    case TraceFormat::burstgpt:
      return "burstgpt";
    case TraceFormat::vidur:
      return "vidur";
    case TraceFormat::tidal_jsonl:
      return "tidal_jsonl";
    case TraceFormat::tidal_csv:
      return "tidal_csv";
  }
  return "unknown";
}

TraceFormat parse_format_name(std::string_view name) {
  for (const TraceFormat format : all_formats()) {
    if (format_name(format) == name) return format;
  }
  if (name == "jsonl") return TraceFormat::tidal_jsonl;
  if (name == "csv") return TraceFormat::tidal_csv;
  throw InputError("unknown trace format '" + std::string(name) + "' (known: " + accepted_names() +
                   ")");
}

TraceFormat detect_format_from_first_line(std::string_view first_line, const std::string& source,
                                          int64_t line_number) {
  const std::string_view line = base::trim_blanks(first_line);
  if (line.starts_with("{")) {
    if (line.find("\"input_length\"") != std::string_view::npos ||
        line.find("\"hash_ids\"") != std::string_view::npos) {
      return TraceFormat::mooncake;
    }
    if (line.find("\"prompt_tokens\"") != std::string_view::npos) return TraceFormat::tidal_jsonl;
  } else {
    base::CsvColumns columns;
    try {
      columns.read_header(line);
    } catch (const base::RowError&) {
      columns = base::CsvColumns();
    }
    if (has_column(columns, "TIMESTAMP") && has_column(columns, "ContextTokens")) {
      return TraceFormat::azure;
    }
    if (has_column(columns, "Timestamp") && has_column(columns, "Request tokens")) {
      return TraceFormat::burstgpt;
    }
    if (has_column(columns, "num_prefill_tokens")) return TraceFormat::vidur;
    if (has_column(columns, "arrival_s") && has_column(columns, "prompt_tokens")) {
      return TraceFormat::tidal_csv;
    }
  }
  throw InputError(source + ":" + std::to_string(line_number) +
                   ": format: cannot tell the trace format from the first line " +
                   base::quote_for_message(line) +
                   " (expected a known CSV header or a JSON object); pass --format (" +
                   accepted_names() + ")");
}

TraceFormat detect_format(const std::string& path) {
  auto source = base::LineSource::open_file(path);
  std::string_view line;
  while (source->next_line(line)) {
    if (!base::trim_blanks(line).empty()) {
      return detect_format_from_first_line(line, path, source->line_number());
    }
  }
  throw InputError(path + ": empty file (no header and no rows)");
}

}  // namespace tidal::traces
