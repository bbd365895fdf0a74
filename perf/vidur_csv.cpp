#include "perf/vidur_csv.h"

#include <charconv>
#include <fstream>

#include "base/input_error.h"

namespace tidal::perf {
namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(
        line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!fields.empty() && !fields.back().empty() && fields.back().back() == '\r') {
    fields.back().pop_back();
  }
  return fields;
}

}  // namespace

CsvTable CsvTable::read(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open");
  CsvTable table;
  table.path_ = path;
  std::string line;
  if (!std::getline(in, line)) throw InputError(path + ": empty file, expected a header line");
  table.header_ = split(line);
  int64_t line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> fields = split(line);
    if (fields.size() != table.header_.size()) {
      throw InputError(path + ":" + std::to_string(line_number) + ": has " +
                       std::to_string(fields.size()) + " fields, expected " +
                       std::to_string(table.header_.size()));
    }
    table.rows_.push_back(std::move(fields));
    table.lines_.push_back(line_number);
  }
  return table;
}

bool CsvTable::has_column(std::string_view name) const {
  for (const std::string& h : header_) {
    if (h == name) return true;
  }
  return false;
}

std::size_t CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  throw InputError(path_ + ": missing column " + std::string(name));
}

const std::string& CsvTable::cell(std::size_t row, std::size_t column) const {
  return rows_[row][column];
}

double CsvTable::number(std::size_t row, std::size_t column) const {
  const std::string& text = rows_[row][column];
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw InputError(path_ + ":" + std::to_string(lines_[row]) + ": " + header_[column] +
                     ": not a number (\"" + text + "\")");
  }
  return value;
}

int64_t CsvTable::integer(std::size_t row, std::size_t column) const {
  const std::string& text = rows_[row][column];
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw InputError(path_ + ":" + std::to_string(lines_[row]) + ": " + header_[column] +
                     ": not an integer (\"" + text + "\")");
  }
  return value;
}

}  // namespace tidal::perf
