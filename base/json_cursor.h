// A small reader for one flat JSON object per line (JSONL traces): keys in order, scalar
// values, arrays of scalars. Faster than building a DOM; errors are RowErrors naming the key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tidal::base {

class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text) : pos_(text.data()), end_(text.data() + text.size()) {}

  // Expects '{'.
  void begin_object();
  // The next key of the object (decoded into `scratch` when it holds escapes); false after
  // the closing '}'.
  bool next_key(std::string_view& key, std::string& scratch);
  // After the closing '}': nothing but blanks may follow.
  void expect_end();

  int64_t read_int64(std::string_view field);
  // An integer in [0, kMaxTokens].
  int64_t read_token_count(std::string_view field);
  double read_double(std::string_view field);
  bool read_bool(std::string_view field);
  void read_string(std::string& out, std::string_view field);
  void read_uint64_array(std::vector<uint64_t>& out, std::string_view field);
  void read_int64_array(std::vector<int64_t>& out, std::string_view field);
  // Skips any value, nested ones included (unknown keys of foreign formats).
  void skip_value(std::string_view field);

 private:
  void skip_blanks() {
    while (pos_ < end_ && (*pos_ == ' ' || *pos_ == '\t' || *pos_ == '\r' || *pos_ == '\n')) ++pos_;
  }
  // The next non-blank char; RowError at line end.
  char peek_char(std::string_view field) {
    skip_blanks();
    if (pos_ == end_) throw_truncated(field);
    return *pos_;
  }
  [[noreturn]] static void throw_truncated(std::string_view field);
  // Reads up to 18 plain decimal digits that end the number (fast path); false, with the
  // position unchanged, for anything else (signs, fractions, exponents, long numbers).
  bool try_read_small_unsigned(uint64_t& value);
  std::string_view number_token(std::string_view field);
  // Decodes the string starting at the opening quote into `out`.
  void read_string_body(std::string& out, std::string_view field);
  template <typename T>
  void read_integer_array(std::vector<T>& out, std::string_view field);

  const char* pos_;
  const char* end_;
  bool first_key_ = true;
};

}  // namespace tidal::base
