// A run folder written as a whole (docs/run-output.md, "Nothing lost"): `tidal simulate` and
// `tidal engine run` write every file into a temporary sibling folder; finish() writes
// summary.json last, stamped with the folder's kind, run id and the length and hash of every
// other file, then swaps the folder into place (the old one renamed aside, the new one renamed
// in, the old one removed). Destroyed unfinished (an exception, a failed write), the writer
// removes the temporary folder and `dir` stays exactly as it was.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/output_files.h"

namespace tidal::base {

// summary.json's "kind" in a folder tidal wrote.
inline constexpr std::string_view kRunFolderKind = "tidal-run";

// True when `dir`/summary.json is a JSON object whose "kind" is kRunFolderKind.
bool is_tidal_run_folder(const std::string& dir);

// InputError unless `dir` may become a run folder: not empty, not a file, and either absent,
// an empty folder or a tidal run folder (tidal replaces only what it wrote). The writer checks
// it too; a command calls it first to fail before a long run.
void check_run_folder_target(const std::string& dir);

// The digest of the file at `path` as it is now (to compare with summary.json's `files`);
// InputError "PATH: cannot read" when it cannot be read.
FileDigest digest_file(const std::string& path);

// How the writer renames folders; a test passes one that fails to check the rollback.
using RenameFolder = std::function<void(const std::filesystem::path& from,
                                        const std::filesystem::path& to, std::error_code& ec)>;

class RunFolderWriter {
 public:
  // check_run_folder_target(dir), then creates the temporary folder beside it.
  explicit RunFolderWriter(std::string dir, RenameFolder rename = nullptr);
  RunFolderWriter(const RunFolderWriter&) = delete;
  RunFolderWriter& operator=(const RunFolderWriter&) = delete;
  ~RunFolderWriter();

  // Writes `name` into the temporary folder and records its digest.
  void write_file(const std::string& name, const std::function<void(std::ostream&)>& write);
  // For a file written over time (requests.csv as a run goes): `name` opened in the temporary
  // folder, to be handed to commit_file once complete. Destroyed uncommitted, it is removed.
  // The writer must outlive it.
  std::unique_ptr<PendingFile> open_file(const std::string& name);
  // Commits `file` (from open_file) and records its digest under `name`.
  void commit_file(const std::string& name, PendingFile& file);

  // Writes summary.json as {"kind", "run_id", "files", then `summary`'s members} and swaps the
  // folder into place. The run id is the hash of everything else in summary.json, so equal runs
  // get equal ids. Returns it.
  std::string finish(const nlohmann::ordered_json& summary);

  const std::string& dir() const { return dir_; }

 private:
  void swap_into_place();

  std::string dir_;
  std::string temporary_dir_;
  RenameFolder rename_;
  std::vector<std::pair<std::string, FileDigest>> files_;  // in the order written
  bool finished_ = false;
};

}  // namespace tidal::base
