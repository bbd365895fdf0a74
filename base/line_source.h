// Lines of a file read in fixed-size chunks (memory bounded by the longest line), or of an
// in-memory text. Strips "\n" / "\r\n" and a leading UTF-8 byte-order mark. A gzip or zstd
// file (told by its first bytes) is decompressed while streaming (base/byte_stream.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tidal::base {

class ByteStream;

class LineSource {
 public:
  // InputError "path: ..." when the path is missing, a directory or unreadable; later,
  // "path:line: ..." from next_line() on a read error or corrupt/truncated compressed data.
  static std::unique_ptr<LineSource> open_file(const std::string& path);
  static std::unique_ptr<LineSource> from_text(std::string text);
  LineSource(const LineSource&) = delete;
  LineSource& operator=(const LineSource&) = delete;
  ~LineSource();

  // The next line, valid until the next call; false at the end.
  bool next_line(std::string_view& line);
  // 1-based number of the line last returned.
  int64_t line_number() const { return line_number_; }
  // How far into the file the lines returned so far reach, and the file's size (0 when
  // unknown, e.g. a pipe), for progress. A plain file or text: the bytes of the lines returned
  // (with their line breaks). A compressed file: compressed bytes, the decoder's position
  // scaled by the share of the decompressed bytes already returned (exact at the end).
  int64_t bytes_returned() const;
  int64_t total_bytes() const { return total_bytes_; }

 private:
  LineSource() = default;
  // Reads more bytes after moving the unread tail to the front; false when nothing was added.
  bool refill();

  std::string path_;
  std::unique_ptr<ByteStream> stream_;  // null for a text
  bool at_eof_ = false;
  std::string buffer_;  // [capacity] bytes; [begin_, end_) are read but not yet returned
  size_t begin_ = 0;
  size_t end_ = 0;
  int64_t line_number_ = 0;
  int64_t bytes_returned_ = 0;  // of the lines returned, with their line breaks
  int64_t bytes_produced_ = 0;  // put into buffer_ by the stream
  int64_t total_bytes_ = 0;
};

}  // namespace tidal::base
