#include "base/byte_stream.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "base/gzip_stream.h"
#include "base/input_error.h"
#include "base/zstd_stream.h"

namespace tidal::base {
namespace {

constexpr std::string_view kGzipMagic = "\x1f\x8b";
constexpr std::string_view kZstdMagic = "\x28\xb5\x2f\xfd";

// The file's bytes as they are. The first few can be read ahead (to tell the format) and are
// returned again by read(), so pipes work too.
class FileStream final : public ByteStream {
 public:
  explicit FileStream(std::FILE* file) : file_(file) {}
  FileStream(const FileStream&) = delete;
  FileStream& operator=(const FileStream&) = delete;
  ~FileStream() override { std::fclose(file_); }

  // The first `size` bytes of the file, or fewer when it is shorter.
  std::string_view peek_start(size_t size) {
    lookahead_.resize(size);
    lookahead_.resize(read_file(lookahead_.data(), size));
    return lookahead_;
  }

  size_t read(char* out, size_t size) override {
    size_t num_copied = 0;
    if (!lookahead_.empty()) {
      num_copied = std::min(size, lookahead_.size());
      std::memcpy(out, lookahead_.data(), num_copied);
      lookahead_.erase(0, num_copied);
    }
    const size_t num_read = num_copied + read_file(out + num_copied, size - num_copied);
    num_bytes_read_ += static_cast<int64_t>(num_read);
    return num_read;
  }

  int64_t file_bytes_read() const override { return num_bytes_read_; }

 private:
  size_t read_file(char* out, size_t size) {
    size_t num_read = 0;
    while (num_read < size) {
      const size_t n = std::fread(out + num_read, 1, size - num_read, file_);
      if (n == 0) {
        if (std::ferror(file_))
          throw StreamError(std::string("read error: ") + std::strerror(errno));
        break;
      }
      num_read += n;
    }
    return num_read;
  }

  std::FILE* file_;
  std::string lookahead_;  // [<= 4] bytes read by peek_start() and not yet returned
  int64_t num_bytes_read_ = 0;
};

}  // namespace

std::unique_ptr<ByteStream> open_byte_stream(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) throw InputError(path + ": cannot open: " + std::strerror(errno));
  auto stream = std::make_unique<FileStream>(file);
  std::string_view start;
  try {
    start = stream->peek_start(kZstdMagic.size());
  } catch (const StreamError& error) {
    throw InputError(path + ": " + error.what());
  }
  if (start.starts_with(kGzipMagic)) return make_gzip_stream(std::move(stream));
  if (start.starts_with(kZstdMagic)) return make_zstd_stream(std::move(stream));
  return stream;
}

}  // namespace tidal::base
