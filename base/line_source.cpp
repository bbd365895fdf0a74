#include "base/line_source.h"

#include <cstring>
#include <filesystem>
#include <system_error>

#include "base/byte_stream.h"
#include "base/input_error.h"

namespace tidal::base {
namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;

}  // namespace

std::unique_ptr<LineSource> LineSource::open_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path + ": is a directory, not a trace file");
  }
  std::unique_ptr<LineSource> source(new LineSource());
  source->path_ = path;
  source->stream_ = open_byte_stream(path);
  source->buffer_.resize(kChunkBytes);
  const auto size = std::filesystem::file_size(path, ec);
  source->total_bytes_ = ec ? 0 : static_cast<int64_t>(size);
  return source;
}

std::unique_ptr<LineSource> LineSource::from_text(std::string text) {
  std::unique_ptr<LineSource> source(new LineSource());
  source->buffer_ = std::move(text);
  source->end_ = source->buffer_.size();
  source->at_eof_ = true;
  source->total_bytes_ = static_cast<int64_t>(source->end_);
  return source;
}

LineSource::~LineSource() = default;

int64_t LineSource::bytes_returned() const {
  if (stream_ == nullptr || bytes_produced_ == 0) return bytes_returned_;
  const int64_t file_bytes = stream_->file_bytes_read();
  if (file_bytes == bytes_produced_) return bytes_returned_;  // not compressed
  return static_cast<int64_t>(
      static_cast<double>(file_bytes) *
      (static_cast<double>(bytes_returned_) / static_cast<double>(bytes_produced_)));
}

bool LineSource::refill() {
  if (at_eof_) return false;
  const size_t unread = end_ - begin_;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, unread);
    begin_ = 0;
    end_ = unread;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);  // one line fills the buffer
  size_t num_read = 0;
  try {
    num_read = stream_->read(buffer_.data() + end_, buffer_.size() - end_);
  } catch (const StreamError& error) {
    throw InputError(path_ + ":" + std::to_string(line_number_ + 1) + ": " + error.what());
  }
  if (num_read == 0) {
    at_eof_ = true;
    return false;
  }
  end_ += num_read;
  bytes_produced_ += static_cast<int64_t>(num_read);
  return true;
}

bool LineSource::next_line(std::string_view& line) {
  size_t scanned = begin_;  // bytes before `scanned` hold no line break
  while (true) {
    const void* found = std::memchr(buffer_.data() + scanned, '\n', end_ - scanned);
    if (found != nullptr) {
      const size_t newline = static_cast<size_t>(static_cast<const char*>(found) - buffer_.data());
      line = std::string_view(buffer_.data() + begin_, newline - begin_);
      begin_ = newline + 1;
      break;
    }
    const size_t scanned_from_begin = end_ - begin_;
    if (!refill()) {
      if (begin_ == end_) return false;
      line = std::string_view(buffer_.data() + begin_, end_ - begin_);  // last line, no break
      begin_ = end_;
      break;
    }
    scanned = begin_ + scanned_from_begin;
  }
  ++line_number_;
  bytes_returned_ += static_cast<int64_t>(line.size()) + 1;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line_number_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
  return true;
}

}  // namespace tidal::base
