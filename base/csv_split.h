// Splitting one CSV line into fields (RFC 4180 quoting within a line) and finding columns by
// header name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tidal::base {

// Fills `fields` with views into `line` or, for quoted fields with doubled quotes, into
// `scratch` (which it reserves so the views stay valid). RowError on an unterminated quote.
void split_csv(std::string_view line, std::vector<std::string_view>& fields, std::string& scratch);

// The columns of a CSV header.
class CsvColumns {
 public:
  void read_header(std::string_view line);
  // Index of the column named `name` (blanks around header names ignored), or -1.
  int find(std::string_view name) const;
  // Like find(), but RowError "name: missing column in the header" when absent.
  int require(std::string_view name) const;
  size_t size() const { return names_.size(); }
  const std::string& name(size_t index) const { return names_[index]; }
  // RowError unless the row has exactly one field per column (names the first missing one).
  void check_row_width(const std::vector<std::string_view>& fields) const;

 private:
  std::vector<std::string> names_;  // [num_columns]
};

}  // namespace tidal::base
