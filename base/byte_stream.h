// The bytes of an input file, decompressed while streaming when the file is gzip or zstd: the
// one source the line reader pulls from. Each read fills the caller's buffer; memory is bounded
// by fixed-size chunks (and, for zstd, the frame's window), never by the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace tidal::base {

// A read error or corrupt/truncated compressed data: what is wrong, without the file name
// (the line reader adds the file and line).
class StreamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ByteStream {
 public:
  virtual ~ByteStream() = default;
  // Fills up to `size` bytes at `out`; returns how many, 0 only at the end of the data.
  // StreamError on a read error or bad compressed data; the bytes decoded before the damage
  // are returned first, and the next call throws.
  virtual size_t read(char* out, size_t size) = 0;
  // Bytes of the file consumed so far (compressed bytes for a compressed file).
  virtual int64_t file_bytes_read() const = 0;
};

// Compressed bytes a decompressor reads from the file at a time.
constexpr size_t kCompressedChunkBytes = size_t{1} << 17;

// Opens `path` (InputError "path: cannot open: ..." when it cannot) and chooses by the first
// bytes, not the name: gzip (1f 8b) and zstd (28 b5 2f fd) are decompressed, anything else is
// returned as it is.
std::unique_ptr<ByteStream> open_byte_stream(const std::string& path);

}  // namespace tidal::base
