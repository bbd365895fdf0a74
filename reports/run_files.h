// Which files of a run folder belong to its run (docs/run-output.md, "Nothing lost"):
// summary.json's `files` gives the length and FNV-1a hash of every other file the run wrote, so
// a report reads only those, and refuses one that is missing, changed or left by another run.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "base/output_files.h"

namespace tidal::reports {

struct RunFiles {
  // False for folders written before summary.json listed its files: every file is then taken as
  // the run's, unchecked.
  bool listed = false;
  std::string run_id;                             // summary.json run_id ("" when not listed)
  std::map<std::string, base::FileDigest> files;  // name -> what the run wrote
  // A run stopped early (summary.json `partial`): "stopped by SIGINT: 3 of 10 requests done".
  std::optional<std::string> partial;
};

// From dir/summary.json; InputError naming the JSON path of a malformed entry.
RunFiles read_run_files(const std::string& dir);

// Whether the report should read dir/`name`: true when the run wrote it and it is unchanged,
// false when the run did not write it and it is absent. InputError when the run wrote it and it
// is missing or differs (length or hash), or when it is there but the run did not write it.
bool use_run_file(const std::string& dir, const RunFiles& files, const std::string& name);

}  // namespace tidal::reports
