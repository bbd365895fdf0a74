// Lines of a file read in fixed-size chunks (memory bounded by the longest line), or of an
// in-memory text. Strips "\n" / "\r\n" and a leading UTF-8 byte-order mark.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace tidal::base {

class LineSource {
 public:
  // InputError "path: ..." when the path is missing, a directory or unreadable.
  static std::unique_ptr<LineSource> open_file(const std::string& path);
  static std::unique_ptr<LineSource> from_text(std::string text);
  LineSource(const LineSource&) = delete;
  LineSource& operator=(const LineSource&) = delete;
  ~LineSource();

  // The next line, valid until the next call; false at the end.
  bool next_line(std::string_view& line);
  // 1-based number of the line last returned.
  int64_t line_number() const { return line_number_; }
  // Bytes of the lines returned so far (with their line breaks), and of the whole input
  // (0 when the size is unknown, e.g. a pipe).
  int64_t bytes_returned() const { return bytes_returned_; }
  int64_t total_bytes() const { return total_bytes_; }

 private:
  LineSource() = default;
  // Reads more bytes after moving the unread tail to the front; false when nothing was added.
  bool refill();

  std::string path_;
  std::FILE* file_ = nullptr;
  bool at_eof_ = false;
  std::string buffer_;  // [capacity] bytes; [begin_, end_) are read but not yet returned
  size_t begin_ = 0;
  size_t end_ = 0;
  int64_t line_number_ = 0;
  int64_t bytes_returned_ = 0;
  int64_t total_bytes_ = 0;
};

}  // namespace tidal::base
