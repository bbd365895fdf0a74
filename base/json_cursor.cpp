#include "base/json_cursor.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>

#include "base/field_parse.h"
#include "base/limits.h"
#include "base/row_error.h"

namespace tidal::base {
namespace {

constexpr std::string_view kTruncated = "truncated JSON (the line ends inside the object)";

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

void append_utf8(std::string& out, uint32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

}  // namespace

void JsonCursor::throw_truncated(std::string_view field) {
  throw RowError(field, std::string(kTruncated));
}

bool JsonCursor::try_read_small_unsigned(uint64_t& value) {
  constexpr int kMaxDigits = 18;  // below 10^18: fits int64 and uint64
  const char* start = pos_;
  uint64_t result = 0;
  int num_digits = 0;
  while (pos_ < end_ && num_digits <= kMaxDigits && static_cast<unsigned>(*pos_ - '0') < 10) {
    result = result * 10 + static_cast<uint64_t>(*pos_ - '0');
    ++pos_;
    ++num_digits;
  }
  if (num_digits == 0 || num_digits > kMaxDigits || (pos_ < end_ && is_number_char(*pos_))) {
    pos_ = start;
    return false;
  }
  value = result;
  return true;
}

void JsonCursor::begin_object() {
  skip_blanks();
  if (pos_ == end_) throw RowError("row", "empty JSON line");
  if (*pos_ != '{') {
    throw RowError("row", "expected a JSON object '{', got " +
                              quote_for_message(std::string_view(pos_, end_ - pos_)));
  }
  ++pos_;
  first_key_ = true;
}

bool JsonCursor::next_key(std::string_view& key, std::string& scratch) {
  char c = peek_char("row");
  if (c == '}') {
    ++pos_;
    return false;
  }
  if (!first_key_) {
    if (c != ',') {
      throw RowError("row", "expected ',' or '}' after a value, got " +
                                quote_for_message(std::string_view(pos_, end_ - pos_)));
    }
    ++pos_;
    c = peek_char("row");
  }
  first_key_ = false;
  if (c != '"') {
    throw RowError("row", "expected a key in quotes, got " +
                              quote_for_message(std::string_view(pos_, end_ - pos_)));
  }
  const char* key_start = pos_ + 1;
  const void* quote = std::memchr(key_start, '"', static_cast<size_t>(end_ - key_start));
  const void* backslash = std::memchr(key_start, '\\', static_cast<size_t>(end_ - key_start));
  if (quote != nullptr && (backslash == nullptr || backslash > quote)) {
    key = std::string_view(key_start, static_cast<const char*>(quote) - key_start);
    pos_ = static_cast<const char*>(quote) + 1;
  } else {
    scratch.clear();
    read_string_body(scratch, "row");
    key = scratch;
  }
  if (peek_char(key) != ':') {
    throw RowError(key, "expected ':' after the key, got " +
                            quote_for_message(std::string_view(pos_, end_ - pos_)));
  }
  ++pos_;
  return true;
}

void JsonCursor::expect_end() {
  skip_blanks();
  if (pos_ != end_) {
    throw RowError("row", "text after the JSON object: " +
                              quote_for_message(std::string_view(pos_, end_ - pos_)));
  }
}

std::string_view JsonCursor::number_token(std::string_view field) {
  peek_char(field);
  const char* start = pos_;
  while (pos_ < end_ && is_number_char(*pos_)) ++pos_;
  if (pos_ == start) {
    const char* stop = start;
    while (stop < end_ && *stop != ',' && *stop != '}' && *stop != ']') ++stop;
    throw RowError(field,
                   "not a number: " + quote_for_message(std::string_view(start, stop - start)));
  }
  return std::string_view(start, pos_ - start);
}

int64_t JsonCursor::read_int64(std::string_view field) {
  uint64_t value = 0;
  if (peek_char(field) != '-' && try_read_small_unsigned(value)) return static_cast<int64_t>(value);
  return parse_int64(number_token(field), field);
}

int64_t JsonCursor::read_token_count(std::string_view field) {
  uint64_t value = 0;
  if (peek_char(field) != '-' && try_read_small_unsigned(value) &&
      value <= static_cast<uint64_t>(kMaxTokens)) {
    return static_cast<int64_t>(value);
  }
  return parse_token_count(number_token(field), field);
}

double JsonCursor::read_double(std::string_view field) {
  return parse_finite_double(number_token(field), field);
}

bool JsonCursor::read_bool(std::string_view field) {
  peek_char(field);
  const auto rest = std::string_view(pos_, end_ - pos_);
  if (rest.starts_with("true")) {
    pos_ += 4;
    return true;
  }
  if (rest.starts_with("false")) {
    pos_ += 5;
    return false;
  }
  throw RowError(field, "not a boolean: " + quote_for_message(rest));
}

void JsonCursor::read_string(std::string& out, std::string_view field) {
  if (peek_char(field) != '"') {
    throw RowError(field,
                   "not a string: " + quote_for_message(std::string_view(pos_, end_ - pos_)));
  }
  out.clear();
  read_string_body(out, field);
}

void JsonCursor::read_string_body(std::string& out, std::string_view field) {
  ++pos_;  // the opening quote
  while (true) {
    if (pos_ == end_) throw RowError(field, std::string(kTruncated));
    const char c = *pos_++;
    if (c == '"') return;
    if (static_cast<unsigned char>(c) < 0x20) {
      throw RowError(field, "control character inside a string");
    }
    if (c != '\\') {
      out += c;
      continue;
    }
    if (pos_ == end_) throw RowError(field, std::string(kTruncated));
    const char escape = *pos_++;
    switch (escape) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        auto read_hex4 = [&]() -> uint32_t {
          if (end_ - pos_ < 4) throw RowError(field, std::string(kTruncated));
          uint32_t value = 0;
          const auto [end, ec] = std::from_chars(pos_, pos_ + 4, value, 16);
          if (ec != std::errc() || end != pos_ + 4) {
            throw RowError(field,
                           "bad \\u escape: " + quote_for_message(std::string_view(pos_, 4)));
          }
          pos_ += 4;
          return value;
        };
        uint32_t code_point = read_hex4();
        if (code_point >= 0xD800 && code_point < 0xDC00) {
          if (end_ - pos_ < 2 || pos_[0] != '\\' || pos_[1] != 'u') {
            throw RowError(field, "unpaired UTF-16 surrogate in a \\u escape");
          }
          pos_ += 2;
          const uint32_t low = read_hex4();
          if (low < 0xDC00 || low >= 0xE000) {
            throw RowError(field, "unpaired UTF-16 surrogate in a \\u escape");
          }
          code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
        } else if (code_point >= 0xDC00 && code_point < 0xE000) {
          throw RowError(field, "unpaired UTF-16 surrogate in a \\u escape");
        }
        append_utf8(out, code_point);
        break;
      }
      default:
        throw RowError(field, "bad escape " + quote_for_message(std::string_view(pos_ - 2, 2)));
    }
  }
}

template <typename T>
void JsonCursor::read_integer_array(std::vector<T>& out, std::string_view field) {
  out.clear();
  if (peek_char(field) != '[') {
    throw RowError(field,
                   "not an array: " + quote_for_message(std::string_view(pos_, end_ - pos_)));
  }
  ++pos_;
  if (peek_char(field) == ']') {
    ++pos_;
    return;
  }
  while (true) {
    uint64_t value = 0;
    if (peek_char(field) != '-' && try_read_small_unsigned(value)) {
      out.push_back(static_cast<T>(value));
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      out.push_back(parse_uint64(number_token(field), field));
    } else {
      out.push_back(parse_int64(number_token(field), field));
    }
    const char c = peek_char(field);
    ++pos_;
    if (c == ']') return;
    if (c != ',') {
      throw RowError(field, "expected ',' or ']' in an array, got " +
                                quote_for_message(std::string_view(pos_ - 1, end_ - pos_ + 1)));
    }
  }
}

void JsonCursor::read_uint64_array(std::vector<uint64_t>& out, std::string_view field) {
  read_integer_array(out, field);
}

void JsonCursor::read_int64_array(std::vector<int64_t>& out, std::string_view field) {
  read_integer_array(out, field);
}

void JsonCursor::skip_value(std::string_view field) {
  int64_t depth = 0;  // open brackets and braces inside the value
  std::string ignored;
  while (true) {
    const char c = peek_char(field);
    if (c == '"') {
      ignored.clear();
      read_string_body(ignored, field);
    } else if (c == '[' || c == '{') {
      ++depth;
      ++pos_;
    } else if (c == ']' || c == '}') {
      if (depth == 0) return;  // the end of the enclosing object
      --depth;
      ++pos_;
    } else if (c == ',' || c == ':') {
      if (depth == 0) return;
      ++pos_;
    } else {
      const char* start = pos_;
      while (pos_ < end_ && !is_blank(*pos_) && std::strchr(",:[]{}\"", *pos_) == nullptr) ++pos_;
      const std::string_view scalar(start, pos_ - start);
      if (scalar != "true" && scalar != "false" && scalar != "null") {
        parse_finite_double(scalar, field);
      }
    }
    if (depth == 0) {
      skip_blanks();
      if (pos_ == end_ || *pos_ == ',' || *pos_ == '}') return;
    }
  }
}

}  // namespace tidal::base
