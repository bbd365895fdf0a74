// Writing output files so that nothing is lost (docs/run-output.md, "Nothing lost"): every file
// is written to a temporary sibling and renamed into place once complete, so a failed or
// interrupted write leaves the previous file as it was (or no file), never a truncated one.
// Every failure is an InputError naming the path, so the CLI prints it and exits 1.
#pragma once

#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace tidal::base {

// Creates `dir` and its parents; "DIR: cannot create output folder: WHY" when that fails or
// `dir` is not a folder.
void create_output_folder(const std::string& dir);

// A name beside `path` that no other writer uses: ".NAME.tidal-TAG-<random hex>" in the same
// folder (so a rename onto `path` stays within one file system).
std::string temporary_sibling(const std::string& path, std::string_view tag);

// What was written to a file: its length and FNV-1a 64 hash (16 lower-case hex digits).
struct FileDigest {
  int64_t num_bytes = 0;
  std::string fnv1a64;
};

// The FNV-1a 64 hash of `bytes` continued from `hash` (start with kFnvOffset).
inline constexpr uint64_t kFnvOffset = 14695981039346656037ull;
uint64_t fnv1a64(std::string_view bytes, uint64_t hash = kFnvOffset);
std::string hex64(uint64_t value);

// One output file being written. Bytes go to a temporary sibling of `path`; commit() flushes,
// closes and renames it onto `path`. Destroyed uncommitted (an exception, a refused row), it
// removes the temporary and leaves `path` as it was.
class PendingFile {
 public:
  // "PATH: cannot open for writing" when the temporary cannot be created.
  explicit PendingFile(std::string path);
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  ~PendingFile();

  std::ostream& stream();
  // "PATH: write failed" when a write, the close or the rename failed.
  void commit();
  // Of every byte written to stream() so far.
  FileDigest digest() const;
  const std::string& path() const { return path_; }

 private:
  class HashingBuffer;
  std::string path_;
  std::string temporary_path_;
  std::ofstream file_;
  std::unique_ptr<HashingBuffer> buffer_;  // hashes what it forwards to file_'s buffer
  std::unique_ptr<std::ostream> stream_;   // writes through buffer_
  bool committed_ = false;
};

// Writes `path` as a whole: a PendingFile handed to `write`, then committed. If `write` throws,
// `path` is left as it was and the exception propagates.
FileDigest write_output_file(const std::string& path,
                             const std::function<void(std::ostream&)>& write);

// write_output_file with `text` as the whole content (traces/writer.h's write_text_file, for
// trace tools, also takes "-" for stdout).
void write_output_text(const std::string& path, std::string_view text);

// Fails now where writing `path` at the end of a long run would fail ("PATH: cannot open for
// writing": its folder is missing, not a folder or not writable), by opening a PendingFile of it
// and dropping it: nothing is left behind and `path` stays as it was.
void check_output_writable(const std::string& path);

// True when both paths name the same file: std::filesystem::equivalent when both exist, else
// equal absolute normal paths.
bool same_file(const std::string& a, const std::string& b);

// "OUTPUT: is also the input; write to another path" when same_file(output, input).
void check_output_is_not_input(const std::string& output, const std::string& input);

}  // namespace tidal::base
