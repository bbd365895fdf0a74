// Reading one table of the measured kernel database (../shared/profiles/aiconfigurator/): a CSV
// file with a header line, plus the columns the folder's manifest.json records as constant over
// the whole table (the conversion to CSV dropped them from the file). Strict: an unreadable file,
// a malformed header, manifest or row is an InputError naming the file and line.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/csv_split.h"
#include "base/line_source.h"

namespace tidal::perf {

// A folder's manifest.json: where its tables come from and the columns each holds constant.
struct KernelDbManifest {
  std::string source;  // "ai-dynamo/aiconfigurator <commit> <folder>" as the manifest says it
  std::map<std::string, std::map<std::string, std::string>> constants;  // file -> column -> value
};

// Reads `dir`/manifest.json; an empty manifest when the file is absent. InputError when it is
// not valid JSON or its entries are not shaped as the README describes.
KernelDbManifest read_kernel_db_manifest(const std::string& dir);

class KernelDbCsv {
 public:
  // Opens `dir`/`file` and reads its header; columns the file lacks may come from the manifest's
  // constants for `file`.
  KernelDbCsv(const std::string& dir, const std::string& file, const KernelDbManifest& manifest);

  // The index of a column of the file or, failing that, of the manifest's constant of that name;
  // InputError "<path>: no column <name> (and manifest.json records no constant of that name)".
  int require(std::string_view name) const;
  // The same, or -1 when neither holds it.
  int find(std::string_view name) const;

  // Reads the next data row (blank lines skipped); false at the end of the file. InputError
  // "<path>:<line>: ..." for a row whose field count differs from the header's.
  bool next();
  // Fields of the current row (a constant's value for a manifest column).
  std::string_view text(int column) const;
  int64_t integer(int column) const;  // InputError "<path>:<line>: <column>: ..."
  double number(int column) const;    // a finite number
  double positive(int column) const;  // a finite number > 0
  int64_t count(int column) const;    // an integer >= 1 (a size: tokens, batch, elements)

  const std::string& path() const { return path_; }
  int64_t line() const;

 private:
  [[noreturn]] void fail(int column, const std::string& what) const;

  std::string path_;
  std::unique_ptr<base::LineSource> source_;
  std::vector<std::string> names_;        // [num_file_columns + num_constants]
  std::vector<std::string> constants_;    // [num_constants], values of names_ past the file's
  std::size_t num_file_columns_ = 0;      // columns of the header line
  std::vector<std::string_view> fields_;  // [num_file_columns], the current row
  std::string scratch_;                   // backing store of quoted fields
};

}  // namespace tidal::perf
