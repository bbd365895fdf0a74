#include "base/zstd_stream.h"

#include <zstd.h>

#include <new>
#include <string>
#include <vector>

namespace tidal::base {
namespace {

class ZstdStream final : public ByteStream {
 public:
  explicit ZstdStream(std::unique_ptr<ByteStream> compressed)
      : compressed_(std::move(compressed)),
        chunk_(kCompressedChunkBytes),
        decoder_(ZSTD_createDStream()) {
    if (decoder_ == nullptr) throw std::bad_alloc();
  }
  ZstdStream(const ZstdStream&) = delete;
  ZstdStream& operator=(const ZstdStream&) = delete;
  ~ZstdStream() override { ZSTD_freeDStream(decoder_); }

  size_t read(char* out, size_t size) override {
    if (!pending_error_.empty()) throw StreamError(pending_error_);
    ZSTD_outBuffer output{out, size, 0};
    try {
      decode_until_full(output);
    } catch (const StreamError& error) {
      if (output.pos == 0) throw;
      pending_error_ = error.what();  // the bytes before the damage come out first
    }
    return output.pos;
  }

  int64_t file_bytes_read() const override {
    return compressed_->file_bytes_read() - static_cast<int64_t>(input_.size - input_.pos);
  }

 private:
  void decode_until_full(ZSTD_outBuffer& output) {
    while (output.pos < output.size) {
      if (input_.pos == input_.size && !at_file_end_) refill();
      const bool input_done = at_file_end_ && input_.pos == input_.size;
      if (input_done && frame_done_) break;
      const size_t output_before = output.pos;
      const size_t hint = ZSTD_decompressStream(decoder_, &output, &input_);
      if (ZSTD_isError(hint)) {
        throw StreamError("corrupt zstd data at compressed byte " +
                          std::to_string(file_bytes_read()) + ": " + ZSTD_getErrorName(hint));
      }
      frame_done_ = hint == 0;  // 0: a frame ended and all its bytes are out
      if (input_done && !frame_done_ && output.pos == output_before) {
        throw StreamError("truncated zstd data: the file ends inside a frame, after " +
                          std::to_string(file_bytes_read()) + " compressed bytes");
      }
    }
  }

  void refill() {
    const size_t num_read = compressed_->read(chunk_.data(), chunk_.size());
    input_ = ZSTD_inBuffer{chunk_.data(), num_read, 0};
    at_file_end_ = num_read == 0;
  }

  std::unique_ptr<ByteStream> compressed_;
  std::vector<char> chunk_;  // [kCompressedChunkBytes]; [input_.pos, input_.size) not yet decoded
  ZSTD_inBuffer input_{nullptr, 0, 0};
  ZSTD_DStream* decoder_;
  bool at_file_end_ = false;
  bool frame_done_ = false;    // the file starts with a frame (its magic was seen)
  std::string pending_error_;  // thrown by the next read(), once the bytes before it are out
};

}  // namespace

std::unique_ptr<ByteStream> make_zstd_stream(std::unique_ptr<ByteStream> compressed) {
  return std::make_unique<ZstdStream>(std::move(compressed));
}

}  // namespace tidal::base
