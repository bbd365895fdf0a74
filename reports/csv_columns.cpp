#include "reports/csv_columns.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::reports {
namespace {

double parse_number(const std::string& text, bool allow_empty, const std::string& where,
                    const std::string& column) {
  if (text.empty()) {
    if (allow_empty) return std::numeric_limits<double>::quiet_NaN();
    throw InputError(fmt::format("{}: {}: empty, expected a number", where, column));
  }
  double value = 0.0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) {
    throw InputError(fmt::format("{}: {}: expected a number, got \"{}\"", where, column, text));
  }
  return value;
}

}  // namespace

std::vector<std::string> split_csv_line(const std::string& line, const std::string& where) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') {
        field.push_back(c);
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field.push_back(c);
    }
  }
  if (quoted) throw InputError(fmt::format("{}: unterminated quoted field", where));
  fields.push_back(std::move(field));
  return fields;
}

CsvColumns read_csv_columns(const std::string& path, const std::vector<ColumnRequest>& requests) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open (missing file?)", path));
  CsvColumns result;
  result.path = path;
  std::string line;
  if (!std::getline(in, line)) throw InputError(fmt::format("{}:1: empty file, no header", path));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  result.header = split_csv_line(line, path + ":1");

  std::vector<int> source_index;  // [requests.size()] field index in the file, -1 if absent
  for (const ColumnRequest& request : requests) {
    int index = -1;
    for (size_t i = 0; i < result.header.size(); ++i) {
      if (result.header[i] == request.name) index = static_cast<int>(i);
    }
    if (index < 0 && request.required) {
      throw InputError(
          fmt::format("{}:1: column \"{}\" is missing from the header", path, request.name));
    }
    source_index.push_back(index);
    result.columns.push_back(Column{request.name, index >= 0, {}, {}});
  }

  int64_t line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, line_number);
    const std::vector<std::string> fields = split_csv_line(line, where);
    if (fields.size() != result.header.size()) {
      throw InputError(fmt::format("{}: {} fields, the header has {}", where, fields.size(),
                                   result.header.size()));
    }
    for (size_t c = 0; c < requests.size(); ++c) {
      if (source_index[c] < 0) continue;
      const std::string& cell = fields[static_cast<size_t>(source_index[c])];
      Column& column = result.columns[c];
      switch (requests[c].kind) {
        case CellKind::number:
          column.numbers.push_back(parse_number(cell, false, where, column.name));
          break;
        case CellKind::optional_number:
          column.numbers.push_back(parse_number(cell, true, where, column.name));
          break;
        case CellKind::text:
          column.texts.push_back(cell);
          break;
      }
    }
    ++result.num_rows;
  }
  return result;
}

}  // namespace tidal::reports
