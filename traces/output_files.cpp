#include "traces/output_files.h"

#include <filesystem>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "traces/input_error.h"

namespace tidal::traces {

void create_output_folder(const std::string& dir) {
  const std::filesystem::path root(dir);
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec || !std::filesystem::is_directory(root)) {
    throw InputError(fmt::format("{}: cannot create output folder: {}", dir,
                                 ec ? ec.message() : "not a directory"));
  }
}

void write_output_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(fmt::format("{}: cannot open for writing", path));
  write(out);
  out.flush();
  if (!out) throw InputError(fmt::format("{}: write failed", path));
}

void write_output_text(const std::string& path, std::string_view text) {
  write_output_file(path, [&](std::ostream& out) { out << text; });
}

}  // namespace tidal::traces
