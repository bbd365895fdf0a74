#include "reports/run_files.h"

#include <filesystem>

#include <fmt/format.h>

#include "base/input_error.h"
#include "base/run_folder.h"
#include "reports/json_fields.h"

namespace tidal::reports {

RunFiles read_run_files(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / "summary.json").string();
  const nlohmann::json root = read_json_file(path);
  const JsonView doc(root, path);
  RunFiles out;
  if (doc.has("partial")) {
    const JsonView p = doc.at("partial");
    out.partial = fmt::format("stopped by {}: {} of {} requests done", p.string("stopped_by"),
                              p.integer("num_finished") + p.integer("num_rejected"),
                              p.integer("num_requests"));
  }
  if (!doc.has("files")) return out;
  out.listed = true;
  out.run_id = doc.string("run_id");
  const JsonView files = doc.at("files");
  if (!files.value().is_object()) files.fail("", "expected an object of file name -> digest");
  for (const auto& item : files.value().items()) {
    const JsonView f = files.at(item.key());
    out.files[item.key()] = base::FileDigest{f.integer("bytes"), f.string("fnv1a64")};
  }
  return out;
}

bool use_run_file(const std::string& dir, const RunFiles& files, const std::string& name) {
  const std::string path = (std::filesystem::path(dir) / name).string();
  const bool exists = std::filesystem::exists(path);
  if (!files.listed) return true;  // unchecked; a missing file fails when it is read
  const auto it = files.files.find(name);
  if (it == files.files.end()) {
    if (!exists) return false;
    throw InputError(fmt::format(
        "{}: not written by this run (summary.json files does not list it): it comes from "
        "another run; remove it or rerun",
        path));
  }
  if (!exists) {
    throw InputError(fmt::format("{}: missing (summary.json files lists it)", path));
  }
  const base::FileDigest found = base::digest_file(path);
  if (found.num_bytes != it->second.num_bytes || found.fnv1a64 != it->second.fnv1a64) {
    throw InputError(fmt::format(
        "{}: not the file run {} wrote ({} bytes, fnv1a64 {}; summary.json files.{} records {} "
        "bytes, {}): it was changed or comes from another run",
        path, files.run_id, found.num_bytes, found.fnv1a64, name, it->second.num_bytes,
        it->second.fnv1a64));
  }
  return true;
}

}  // namespace tidal::reports
