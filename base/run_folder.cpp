#include "base/run_folder.h"

#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::base {

namespace fs = std::filesystem;

namespace {

void rename_folder(const fs::path& from, const fs::path& to, std::error_code& ec) {
  fs::rename(from, to, ec);
}

// `dir` normalised, without a trailing separator ("out/run/" is "out/run").
fs::path folder_path(const std::string& dir) {
  fs::path p = fs::path(dir).lexically_normal();
  return p.has_filename() ? p : p.parent_path();
}

bool is_empty_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_empty(dir, ec) && !ec;
}

}  // namespace

bool is_tidal_run_folder(const std::string& dir) {
  std::ifstream in(fs::path(dir) / "summary.json", std::ios::binary);
  if (!in) return false;
  const nlohmann::json summary = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!summary.is_object()) return false;
  const auto kind = summary.find("kind");
  return kind != summary.end() && kind->is_string() && kind->get<std::string>() == kRunFolderKind;
}

void check_run_folder_target(const std::string& dir) {
  if (dir.empty()) throw InputError("run folder: the path is empty");
  const fs::path root = folder_path(dir);
  if (root.empty() || root.filename() == "." || root.filename() == ".." ||
      root == root.root_path()) {
    throw InputError(fmt::format("{}: name the run folder itself, not '.', '..' or a root", dir));
  }
  std::error_code ec;
  const fs::file_status status = fs::status(root, ec);
  if (fs::exists(status) && !fs::is_directory(status)) {
    throw InputError(fmt::format("{}: cannot create output folder: not a directory", dir));
  }
  if (fs::is_directory(status) && !is_empty_folder(root) && !is_tidal_run_folder(dir)) {
    throw InputError(fmt::format(
        "{}: the folder holds files and is not a tidal run folder (no summary.json with "
        "\"kind\": \"{}\"); tidal replaces a run folder as a whole, so give an empty or new "
        "folder",
        dir, kRunFolderKind));
  }
}

FileDigest digest_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read", path));
  std::string chunk(size_t{1} << 20, '\0');  // [1 MiB] bytes read at a time
  uint64_t hash = kFnvOffset;
  int64_t num_bytes = 0;
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto num_read = static_cast<size_t>(in.gcount());
    hash = fnv1a64(std::string_view(chunk.data(), num_read), hash);
    num_bytes += static_cast<int64_t>(num_read);
  }
  if (in.bad()) throw InputError(fmt::format("{}: cannot read", path));
  return FileDigest{num_bytes, hex64(hash)};
}

RunFolderWriter::RunFolderWriter(std::string dir, RenameFolder rename)
    : dir_(std::move(dir)), rename_(rename ? std::move(rename) : RenameFolder(rename_folder)) {
  check_run_folder_target(dir_);
  std::error_code ec;
  create_output_folder(fs::absolute(folder_path(dir_), ec).parent_path().string());
  temporary_dir_ = temporary_sibling(dir_, "new");
  fs::create_directory(temporary_dir_, ec);
  if (ec) {
    throw InputError(
        fmt::format("{}: cannot create output folder: {}", temporary_dir_, ec.message()));
  }
}

RunFolderWriter::~RunFolderWriter() {
  if (finished_) return;
  std::error_code ec;
  fs::remove_all(temporary_dir_, ec);  // nothing to report from a destructor
}

void RunFolderWriter::write_file(const std::string& name,
                                 const std::function<void(std::ostream&)>& write) {
  files_.emplace_back(name, write_output_file((fs::path(temporary_dir_) / name).string(), write));
}

std::unique_ptr<PendingFile> RunFolderWriter::open_file(const std::string& name) {
  return std::make_unique<PendingFile>((fs::path(temporary_dir_) / name).string());
}

void RunFolderWriter::commit_file(const std::string& name, PendingFile& file) {
  file.commit();
  files_.emplace_back(name, file.digest());
}

std::string RunFolderWriter::finish(const nlohmann::ordered_json& summary) {
  nlohmann::ordered_json files = nlohmann::ordered_json::object();
  for (const auto& [name, digest] : files_) {
    files[name] = {{"bytes", digest.num_bytes}, {"fnv1a64", digest.fnv1a64}};
  }
  const std::string run_id = hex64(fnv1a64(summary.dump(), fnv1a64(files.dump())));
  nlohmann::ordered_json stamped{
      {"kind", kRunFolderKind}, {"run_id", run_id}, {"files", std::move(files)}};
  for (const auto& [key, value] : summary.items()) stamped[key] = value;
  write_output_text((fs::path(temporary_dir_) / "summary.json").string(), stamped.dump(2) + "\n");
  swap_into_place();
  finished_ = true;
  return run_id;
}

void RunFolderWriter::swap_into_place() {
  const fs::path target = folder_path(dir_);
  std::error_code ec;
  const bool replaces = fs::exists(target, ec);
  const std::string aside = temporary_sibling(dir_, "old");
  if (replaces) {
    rename_(target, aside, ec);
    if (ec) throw InputError(fmt::format("{}: cannot replace the folder: {}", dir_, ec.message()));
  }
  rename_(temporary_dir_, target, ec);
  if (ec) {
    const std::string why = ec.message();
    if (replaces) rename_(aside, target, ec);  // put the old run back
    throw InputError(fmt::format("{}: cannot move the new run folder into place: {}", dir_, why));
  }
  if (replaces) fs::remove_all(aside, ec);  // the old run; a leftover is harmless
}

}  // namespace tidal::base
