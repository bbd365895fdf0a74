#include "perf/kernel_db_csv.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/field_parse.h"
#include "base/input_error.h"
#include "base/row_error.h"

namespace tidal::perf {
namespace {

std::string join_path(const std::string& dir, const std::string& file) {
  return (std::filesystem::path(dir) / file).string();
}

// One manifest entry's {"summary": {"file": ..., "constant": {...}}}.
void read_summary(const nlohmann::json& entry, const std::string& path,
                  KernelDbManifest& manifest) {
  const auto summary = entry.find("summary");
  if (summary == entry.end() || !summary->is_object()) {
    throw InputError(path + ": an entry has no \"summary\" object");
  }
  const auto file = summary->find("file");
  if (file == summary->end() || !file->is_string()) {
    throw InputError(path + ": a summary has no \"file\" string");
  }
  std::map<std::string, std::string>& constants = manifest.constants[file->get<std::string>()];
  const auto constant = summary->find("constant");
  if (constant == summary->end()) return;
  if (!constant->is_object()) throw InputError(path + ": \"constant\" must be an object");
  for (const auto& [column, value] : constant->items()) {
    if (!value.is_string()) {
      throw InputError(fmt::format("{}: constant \"{}\" must be a string", path, column));
    }
    constants[column] = value.get<std::string>();
  }
}

}  // namespace

KernelDbManifest read_kernel_db_manifest(const std::string& dir) {
  KernelDbManifest manifest;
  const std::string path = join_path(dir, "manifest.json");
  if (!std::filesystem::exists(path)) return manifest;
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& error) {
    throw InputError(path + ": not valid JSON: " + error.what());
  }
  if (!root.is_object()) throw InputError(path + ": must be a JSON object");
  if (const auto source = root.find("source"); source != root.end() && source->is_string()) {
    manifest.source = source->get<std::string>();
  }
  // Engine folders list their tables; the nccl folder's manifest is one summary.
  if (const auto tables = root.find("tables"); tables != root.end()) {
    if (!tables->is_array()) throw InputError(path + ": \"tables\" must be an array");
    for (const nlohmann::json& entry : *tables) read_summary(entry, path, manifest);
  } else if (root.contains("summary")) {
    read_summary(root, path, manifest);
  }
  return manifest;
}

KernelDbCsv::KernelDbCsv(const std::string& dir, const std::string& file,
                         const KernelDbManifest& manifest)
    : path_(join_path(dir, file)), source_(base::LineSource::open_file(path_)) {
  std::string_view header;
  while (source_->next_line(header)) {
    if (!base::trim_blanks(header).empty()) break;
  }
  if (base::trim_blanks(header).empty()) {
    throw InputError(path_ + ": empty file, expected a header line");
  }
  try {
    base::split_csv(header, fields_, scratch_);
  } catch (const base::RowError& error) {
    throw InputError(fmt::format("{}:{}: header: {}", path_, line(), error.what()));
  }
  for (const std::string_view field : fields_) {
    const std::string name(base::trim_blanks(field));
    if (name.empty())
      throw InputError(fmt::format("{}:{}: header: empty column name", path_, line()));
    if (find(name) >= 0) {
      throw InputError(fmt::format("{}:{}: header: column {} appears twice", path_, line(), name));
    }
    names_.push_back(name);
  }
  num_file_columns_ = names_.size();
  if (const auto constants = manifest.constants.find(file); constants != manifest.constants.end()) {
    for (const auto& [name, value] : constants->second) {
      if (find(name) >= 0) continue;  // the file's own column wins
      names_.push_back(name);
      constants_.push_back(value);
    }
  }
}

int KernelDbCsv::find(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

int KernelDbCsv::require(std::string_view name) const {
  const int column = find(name);
  if (column < 0) {
    throw InputError(fmt::format(
        "{}: no column {} (and manifest.json records no constant of that name)", path_, name));
  }
  return column;
}

int64_t KernelDbCsv::line() const {
  return source_->line_number();
}

bool KernelDbCsv::next() {
  std::string_view row;
  while (source_->next_line(row)) {
    if (base::trim_blanks(row).empty()) continue;
    try {
      base::split_csv(row, fields_, scratch_);
    } catch (const base::RowError& error) {
      throw InputError(fmt::format("{}:{}: {}", path_, line(), error.what()));
    }
    if (fields_.size() != num_file_columns_) {
      throw InputError(fmt::format("{}:{}: has {} fields, the header has {}", path_, line(),
                                   fields_.size(), num_file_columns_));
    }
    return true;
  }
  return false;
}

std::string_view KernelDbCsv::text(int column) const {
  const auto index = static_cast<std::size_t>(column);
  if (index < num_file_columns_) return base::trim_blanks(fields_[index]);
  return constants_[index - num_file_columns_];
}

void KernelDbCsv::fail(int column, const std::string& what) const {
  throw InputError(
      fmt::format("{}:{}: {}: {}", path_, line(), names_[static_cast<std::size_t>(column)], what));
}

int64_t KernelDbCsv::integer(int column) const {
  try {
    return base::parse_int64(text(column), names_[static_cast<std::size_t>(column)]);
  } catch (const base::RowError& error) {
    fail(column, error.what());
  }
}

double KernelDbCsv::number(int column) const {
  try {
    return base::parse_finite_double(text(column), names_[static_cast<std::size_t>(column)]);
  } catch (const base::RowError& error) {
    fail(column, error.what());
  }
}

double KernelDbCsv::positive(int column) const {
  const double value = number(column);
  if (!(value > 0.0)) fail(column, fmt::format("must be > 0 (got {})", value));
  return value;
}

int64_t KernelDbCsv::count(int column) const {
  const int64_t value = integer(column);
  if (value < 1) fail(column, fmt::format("must be >= 1 (got {})", value));
  return value;
}

}  // namespace tidal::perf
