#include "base/csv_split.h"

#include <cstring>

#include <fmt/format.h>

#include "base/field_parse.h"
#include "base/row_error.h"

namespace tidal::base {
namespace {

// Appends the quoted field starting at line[pos] (an opening quote) to `scratch`; returns the
// position just after the closing quote.
size_t read_quoted(std::string_view line, size_t pos, std::string& scratch) {
  ++pos;
  while (true) {
    const size_t quote = line.find('"', pos);
    if (quote == std::string_view::npos) throw RowError("row", "unterminated quoted field");
    scratch.append(line.data() + pos, quote - pos);
    if (quote + 1 < line.size() && line[quote + 1] == '"') {
      scratch += '"';
      pos = quote + 2;
      continue;
    }
    return quote + 1;
  }
}

}  // namespace

void split_csv(std::string_view line, std::vector<std::string_view>& fields, std::string& scratch) {
  fields.clear();
  if (std::memchr(line.data(), '"', line.size()) == nullptr) {
    size_t start = 0;
    while (true) {
      const void* comma = std::memchr(line.data() + start, ',', line.size() - start);
      if (comma == nullptr) {
        fields.emplace_back(line.data() + start, line.size() - start);
        return;
      }
      const size_t end = static_cast<size_t>(static_cast<const char*>(comma) - line.data());
      fields.emplace_back(line.data() + start, end - start);
      start = end + 1;
    }
  }
  scratch.clear();
  scratch.reserve(line.size());  // views into scratch must not move
  size_t pos = 0;
  while (true) {
    const size_t field_start = pos;
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    if (pos < line.size() && line[pos] == '"') {
      const size_t scratch_start = scratch.size();
      pos = read_quoted(line, pos, scratch);
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
      if (pos < line.size() && line[pos] != ',') {
        throw RowError("row", "text after a closing quote: " + quote_for_message(line.substr(pos)));
      }
      fields.emplace_back(scratch.data() + scratch_start, scratch.size() - scratch_start);
    } else {
      const size_t comma = line.find(',', field_start);
      const size_t end = comma == std::string_view::npos ? line.size() : comma;
      const std::string_view field = line.substr(field_start, end - field_start);
      if (field.find('"') != std::string_view::npos) {
        throw RowError("row", "quote inside an unquoted field: " + quote_for_message(field));
      }
      fields.push_back(field);
      pos = end;
    }
    if (pos >= line.size()) return;
    ++pos;  // the comma
  }
}

void CsvColumns::read_header(std::string_view line) {
  std::vector<std::string_view> fields;  // [num_columns]
  std::string scratch;
  split_csv(line, fields, scratch);
  names_.clear();
  for (const std::string_view field : fields) names_.emplace_back(trim_blanks(field));
}

int CsvColumns::find(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

int CsvColumns::require(std::string_view name) const {
  const int index = find(name);
  if (index < 0) throw RowError(name, "missing column in the header");
  return index;
}

void CsvColumns::check_row_width(const std::vector<std::string_view>& fields) const {
  if (fields.size() < names_.size()) {
    throw RowError(
        names_[fields.size()],
        fmt::format("missing field (the row has {} of {} columns)", fields.size(), names_.size()));
  }
  if (fields.size() > names_.size()) {
    throw RowError("row", fmt::format("{} fields, but the header has {} columns", fields.size(),
                                      names_.size()));
  }
}

}  // namespace tidal::base
