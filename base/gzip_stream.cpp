#include "base/gzip_stream.h"

#include <zlib.h>

#include <algorithm>
#include <limits>
#include <new>
#include <string>
#include <vector>

namespace tidal::base {
namespace {

// zlib's windowBits for a gzip header and trailer around the deflate data.
constexpr int kGzipWindowBits = 16 + MAX_WBITS;

class GzipStream final : public ByteStream {
 public:
  explicit GzipStream(std::unique_ptr<ByteStream> compressed)
      : compressed_(std::move(compressed)), chunk_(kCompressedChunkBytes) {
    if (inflateInit2(&inflater_, kGzipWindowBits) != Z_OK) throw std::bad_alloc();
  }
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;
  ~GzipStream() override { inflateEnd(&inflater_); }

  size_t read(char* out, size_t size) override {
    if (!pending_error_.empty()) throw StreamError(pending_error_);
    inflater_.next_out = reinterpret_cast<Bytef*>(out);
    inflater_.avail_out =
        static_cast<uInt>(std::min<size_t>(size, std::numeric_limits<uInt>::max()));
    const uInt avail_out_before = inflater_.avail_out;
    try {
      inflate_until_full();
    } catch (const StreamError& error) {
      if (inflater_.avail_out == avail_out_before) throw;
      pending_error_ = error.what();  // the bytes before the damage come out first
    }
    return avail_out_before - inflater_.avail_out;
  }

  int64_t file_bytes_read() const override {
    return compressed_->file_bytes_read() - static_cast<int64_t>(inflater_.avail_in);
  }

 private:
  void inflate_until_full() {
    while (inflater_.avail_out > 0) {
      if (inflater_.avail_in == 0 && !refill()) {
        if (in_member_) {
          throw StreamError("truncated gzip data: the file ends inside a member, after " +
                            std::to_string(file_bytes_read()) + " compressed bytes");
        }
        return;
      }
      if (!in_member_) start_next_member();
      const int status = inflate(&inflater_, Z_NO_FLUSH);
      if (status == Z_STREAM_END) {
        in_member_ = false;
      } else if (status != Z_OK && status != Z_BUF_ERROR) {
        throw StreamError("corrupt gzip data at compressed byte " +
                          std::to_string(file_bytes_read()) + ": " +
                          (inflater_.msg != nullptr ? inflater_.msg : zError(status)));
      }
    }
  }

  // Bytes follow a member's trailer: they must be another member (checked on the first byte
  // of the magic, the one surely in the chunk).
  void start_next_member() {
    if (inflater_.next_in[0] != 0x1f) {
      throw StreamError("corrupt gzip data at compressed byte " +
                        std::to_string(file_bytes_read()) + ": the bytes after member " +
                        std::to_string(num_members_) +
                        " do not start another gzip member (padding or garbage)");
    }
    inflateReset(&inflater_);
    in_member_ = true;
    ++num_members_;
  }

  // Reads the next chunk of compressed bytes; false at the end of the file.
  bool refill() {
    const size_t num_read = compressed_->read(chunk_.data(), chunk_.size());
    inflater_.next_in = reinterpret_cast<Bytef*>(chunk_.data());
    inflater_.avail_in = static_cast<uInt>(num_read);
    return num_read > 0;
  }

  std::unique_ptr<ByteStream> compressed_;
  std::vector<char> chunk_;  // [kCompressedChunkBytes]; the last avail_in bytes not yet inflated
  z_stream inflater_{};
  bool in_member_ = true;      // the file starts with a member (its magic was seen)
  int64_t num_members_ = 1;    // started so far
  std::string pending_error_;  // thrown by the next read(), once the bytes before it are out
};

}  // namespace

std::unique_ptr<ByteStream> make_gzip_stream(std::unique_ptr<ByteStream> compressed) {
  return std::make_unique<GzipStream>(std::move(compressed));
}

}  // namespace tidal::base
