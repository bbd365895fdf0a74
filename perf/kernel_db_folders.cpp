#include "perf/kernel_db_folders.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::perf {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kEngines[] = {"vllm", "sglang", "trtllm"};

bool is_dir(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

// "H200 (h200_sxm), B200 (b200_sxm)" for the known GPU folders `dir` holds.
std::string gpus_held(const fs::path& dir) {
  std::vector<std::string> held;
  for (const auto& [name, folder] : kernel_db_gpu_folders()) {
    if (is_dir(dir / folder)) held.push_back(fmt::format("{}/ for {}", folder, name));
  }
  return held.empty() ? std::string("none of the known GPU folders") : comma_separated(held);
}

// Versions of `engine` under `gpu_dir`: the suffixes of its "<engine>-<version>" folders, sorted.
std::vector<std::string> versions_held(const fs::path& gpu_dir, std::string_view engine) {
  std::vector<std::string> versions;
  const std::string prefix = std::string(engine) + "-";
  for (const fs::directory_entry& entry : fs::directory_iterator(gpu_dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.starts_with(prefix) && name.size() > prefix.size()) {
      versions.push_back(name.substr(prefix.size()));
    }
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

}  // namespace

std::string comma_separated(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

const std::vector<std::pair<std::string, std::string>>& kernel_db_gpu_folders() {
  static const std::vector<std::pair<std::string, std::string>> folders = {
      {"H100-SXM", "h100_sxm"},  {"H200", "h200_sxm"}, {"B200", "b200_sxm"},
      {"A100-80GB", "a100_sxm"}, {"GB200", "gb200"},
  };
  return folders;
}

std::string same_chip_gpu(const KernelDbSpec& spec, const KernelDbFolders& folders) {
  static const std::pair<std::string_view, std::string_view> kSameChip[] = {
      {"h100_sxm", "h200_sxm"}, {"h200_sxm", "h100_sxm"}};
  for (const auto& [own, other] : kSameChip) {
    if (own != folders.kernel_gpu) continue;
    if (!is_dir(fs::path(spec.dir) / other / folders.engine_folder)) return "";
    for (const auto& [name, folder] : kernel_db_gpu_folders()) {
      if (folder == other) return name;
    }
  }
  return "";
}

KernelDbFolders resolve_kernel_db_folders(const KernelDbSpec& spec, const GpuSpec& gpu) {
  const fs::path dir(spec.dir);
  if (spec.dir.empty() || !is_dir(dir)) {
    throw InputError(fmt::format("kernel_db: dir \"{}\" is not a folder", spec.dir));
  }
  KernelDbFolders out;
  for (const auto& [name, folder] : kernel_db_gpu_folders()) {
    if (name == gpu.name) out.collective_gpu = folder;
  }
  if (out.collective_gpu.empty()) {
    throw InputError(fmt::format("kernel_db: GPU {} has no kernel tables; {} holds {}", gpu.name,
                                 spec.dir, gpus_held(dir)));
  }
  out.kernel_gpu = out.collective_gpu == "gb200" ? "b200_sxm" : out.collective_gpu;
  if (!is_dir(dir / out.kernel_gpu) || !is_dir(dir / out.collective_gpu)) {
    throw InputError(fmt::format("kernel_db: {} has no {} folder for GPU {}; it holds {}", spec.dir,
                                 is_dir(dir / out.kernel_gpu) ? out.collective_gpu : out.kernel_gpu,
                                 gpu.name, gpus_held(dir)));
  }
  if (std::find(std::begin(kEngines), std::end(kEngines), spec.engine) == std::end(kEngines)) {
    throw InputError(
        fmt::format("kernel_db: unknown engine \"{}\" (known: vllm, sglang, trtllm)", spec.engine));
  }
  const std::vector<std::string> versions = versions_held(dir / out.kernel_gpu, spec.engine);
  const fs::path kernel_gpu_dir = dir / out.kernel_gpu;
  if (versions.empty()) {
    throw InputError(
        fmt::format("kernel_db: {} holds no {} tables", kernel_gpu_dir.string(), spec.engine));
  }
  std::string version = spec.engine_version;
  if (version.empty()) {
    if (versions.size() > 1) {
      throw InputError(
          fmt::format("kernel_db: {} holds {} versions {}; choose one (engine_version)",
                      kernel_gpu_dir.string(), spec.engine, comma_separated(versions)));
    }
    version = versions.front();
  } else if (std::find(versions.begin(), versions.end(), version) == versions.end()) {
    throw InputError(fmt::format("kernel_db: {} has no {} {} (it holds {})",
                                 kernel_gpu_dir.string(), spec.engine, version,
                                 comma_separated(versions)));
  }
  out.engine_version = version;
  out.engine_folder = spec.engine + "-" + version;
  out.kernels_dir = (kernel_gpu_dir / out.engine_folder).string();
  out.allreduce_dir = (dir / out.collective_gpu / out.engine_folder).string();
  out.nccl_dir = (dir / out.collective_gpu / "nccl").string();
  if (!is_dir(out.allreduce_dir)) {
    throw InputError(fmt::format("kernel_db: {} does not exist (GPU {}'s collectives of {})",
                                 out.allreduce_dir, gpu.name, out.engine_folder));
  }
  return out;
}

}  // namespace tidal::perf
