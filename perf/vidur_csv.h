// A minimal reader for Vidur's profiling CSVs: a header line, then rows of plain comma-separated
// fields (no quoting in these files). Errors name the file, line and column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tidal::perf {

class CsvTable {
 public:
  // InputError when the file cannot be opened, is empty, or a row's field count differs.
  static CsvTable read(const std::string& path);

  bool has_column(std::string_view name) const;
  std::size_t column(std::string_view name) const;  // InputError "<path>: missing column <name>"
  std::size_t num_rows() const { return rows_.size(); }
  const std::string& cell(std::size_t row, std::size_t column) const;
  double number(std::size_t row, std::size_t column) const;  // "<path>:<line>: <col>: not a number"
  int64_t integer(std::size_t row, std::size_t column) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> header_;             // [num_columns]
  std::vector<std::vector<std::string>> rows_;  // [num_rows][num_columns]
  std::vector<int64_t> lines_;                  // [num_rows] 1-based line numbers
};

}  // namespace tidal::perf
