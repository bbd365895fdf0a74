// Strict reading of named columns from a CSV file with a header line (requests.csv,
// timeline.csv). A missing file or column, or a cell that is not what its column holds, is an
// InputError naming the file, the line and the column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tidal::reports {

enum class CellKind {
  number,           // a finite decimal number
  optional_number,  // a number or an empty cell (read as NaN)
  text,             // any text (quoted fields unquoted)
};

struct ColumnRequest {
  std::string name;
  CellKind kind = CellKind::number;
  bool required = true;  // absent optional columns come back with `present` false
};

struct Column {
  std::string name;
  bool present = false;
  std::vector<double> numbers;     // [num_rows] for number kinds
  std::vector<std::string> texts;  // [num_rows] for text
};

struct CsvColumns {
  std::string path;
  std::vector<std::string> header;  // every column name of the file, in file order
  int64_t num_rows = 0;
  std::vector<Column> columns;  // one per request, in request order
};

// Reads `path`, keeping the requested columns.
CsvColumns read_csv_columns(const std::string& path, const std::vector<ColumnRequest>& requests);

// Splits one CSV line into fields (RFC 4180 quoting within the line). InputError naming
// `where` ("file:line") on an unterminated quote.
std::vector<std::string> split_csv_line(const std::string& line, const std::string& where);

}  // namespace tidal::reports
