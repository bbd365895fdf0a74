#include "base/output_files.h"

#include <atomic>
#include <filesystem>
#include <random>
#include <streambuf>
#include <system_error>

#include <fmt/format.h>

#include "base/input_error.h"

namespace tidal::base {

namespace fs = std::filesystem;

// Forwards every byte to `target` unchanged and hashes it on the way.
class PendingFile::HashingBuffer : public std::streambuf {
 public:
  explicit HashingBuffer(std::streambuf* target) : target_(target) {}
  FileDigest digest() const { return FileDigest{num_bytes_, hex64(hash_)}; }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char byte = traits_type::to_char_type(c);
    return xsputn(&byte, 1) == 1 ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* bytes, std::streamsize count) override {
    const std::streamsize written = target_->sputn(bytes, count);
    hash_ = fnv1a64(std::string_view(bytes, static_cast<size_t>(written)), hash_);
    num_bytes_ += written;
    return written;
  }
  int sync() override { return target_->pubsync(); }

 private:
  std::streambuf* target_;
  uint64_t hash_ = kFnvOffset;
  int64_t num_bytes_ = 0;
};

void create_output_folder(const std::string& dir) {
  const fs::path root(dir);
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec || !fs::is_directory(root)) {
    throw InputError(fmt::format("{}: cannot create output folder: {}", dir,
                                 ec ? ec.message() : "not a directory"));
  }
}

std::string temporary_sibling(const std::string& path, std::string_view tag) {
  static std::atomic<uint64_t> num_made{0};
  static const uint64_t process_salt = [] {
    std::random_device device;
    return (uint64_t{device()} << 32) ^ device();
  }();
  const uint64_t suffix = fnv1a64(hex64(num_made++), process_salt);
  fs::path p(path);
  if (!p.has_filename()) p = p.parent_path();  // "out/run/" names "out/run"
  return (p.parent_path() /
          fmt::format(".{}.tidal-{}-{}", p.filename().string(), tag, hex64(suffix)))
      .string();
}

uint64_t fnv1a64(std::string_view bytes, uint64_t hash) {
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string hex64(uint64_t value) {
  return fmt::format("{:016x}", value);
}

PendingFile::PendingFile(std::string path)
    : path_(std::move(path)), temporary_path_(temporary_sibling(path_, "tmp")) {
  file_.open(temporary_path_, std::ios::binary | std::ios::trunc);
  if (!file_) throw InputError(fmt::format("{}: cannot open for writing", path_));
  buffer_ = std::make_unique<HashingBuffer>(file_.rdbuf());
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

void check_output_writable(const std::string& path) {
  const PendingFile probe(path);
}

PendingFile::~PendingFile() {
  if (committed_) return;
  file_.close();
  std::error_code ec;
  fs::remove(temporary_path_, ec);  // nothing to report from a destructor
}

std::ostream& PendingFile::stream() {
  return *stream_;
}

FileDigest PendingFile::digest() const {
  return buffer_->digest();
}

void PendingFile::commit() {
  stream_->flush();
  const bool wrote = static_cast<bool>(*stream_);
  file_.close();
  if (!wrote || !file_) throw InputError(fmt::format("{}: write failed", path_));
  std::error_code ec;
  fs::rename(temporary_path_, path_, ec);
  if (ec) throw InputError(fmt::format("{}: write failed: {}", path_, ec.message()));
  committed_ = true;
}

FileDigest write_output_file(const std::string& path,
                             const std::function<void(std::ostream&)>& write) {
  PendingFile file(path);
  write(file.stream());
  file.commit();
  return file.digest();
}

void write_output_text(const std::string& path, std::string_view text) {
  write_output_file(path, [&](std::ostream& out) { out << text; });
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    const bool equivalent = fs::equivalent(a, b, ec);
    return !ec && equivalent;
  }
  return fs::absolute(a, ec).lexically_normal() == fs::absolute(b, ec).lexically_normal();
}

void check_output_is_not_input(const std::string& output, const std::string& input) {
  if (same_file(output, input)) {
    throw InputError(
        fmt::format("{}: is also the input ({}); write to another path", output, input));
  }
}

}  // namespace tidal::base
