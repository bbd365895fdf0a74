// Writing the files of an output folder (run folders, plan and report outputs). Every failure
// is an InputError naming the path, so the CLI prints it and exits 1.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace tidal::traces {

// Creates `dir` and its parents; "DIR: cannot create output folder: WHY" when that fails or
// `dir` is not a folder.
void create_output_folder(const std::string& dir);

// Opens `path` for binary writing (truncating it), hands the stream to `write` and flushes:
// "PATH: cannot open for writing" / "PATH: write failed".
void write_output_file(const std::string& path, const std::function<void(std::ostream&)>& write);

// write_output_file with `text` as the whole content (traces/writer.h's write_text_file, for
// trace tools, also takes "-" for stdout and words its errors with errno).
void write_output_text(const std::string& path, std::string_view text);

}  // namespace tidal::traces
