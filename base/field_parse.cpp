#include "base/field_parse.h"

#include <charconv>
#include <cmath>
#include <system_error>

#include <fmt/format.h>

#include "base/limits.h"
#include "base/row_error.h"

namespace tidal::base {

std::string_view trim_blanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::string quote_for_message(std::string_view text) {
  constexpr size_t kMaxBytes = 40;
  std::string quoted = "'";
  for (size_t i = 0; i < text.size() && i < kMaxBytes; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      quoted += static_cast<char>(byte);
    } else {
      quoted += fmt::format("\\x{:02x}", byte);
    }
  }
  if (text.size() > kMaxBytes) quoted += "...";
  quoted += "'";
  return quoted;
}

namespace {

template <typename T>
T parse_integer(std::string_view text, std::string_view field) {
  text = trim_blanks(text);
  if (text.empty()) throw RowError(field, "missing value");
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    throw RowError(field, "integer out of range: " + quote_for_message(text));
  }
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw RowError(field, "not an integer: " + quote_for_message(text));
  }
  return value;
}

}  // namespace

int64_t parse_int64(std::string_view text, std::string_view field) {
  return parse_integer<int64_t>(text, field);
}

uint64_t parse_uint64(std::string_view text, std::string_view field) {
  if (!trim_blanks(text).empty() && trim_blanks(text).front() == '-') {
    throw RowError(field, "must be >= 0, got " + quote_for_message(trim_blanks(text)));
  }
  return parse_integer<uint64_t>(text, field);
}

int64_t parse_token_count(std::string_view text, std::string_view field) {
  const int64_t value = parse_integer<int64_t>(text, field);
  if (value < 0) throw RowError(field, fmt::format("must be >= 0, got {}", value));
  if (value > kMaxTokens)
    throw RowError(field, fmt::format("must be <= {}, got {}", kMaxTokens, value));
  return value;
}

double parse_finite_double(std::string_view text, std::string_view field) {
  text = trim_blanks(text);
  if (text.empty()) throw RowError(field, "missing value");
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw RowError(field, "not a number: " + quote_for_message(text));
  }
  if (!std::isfinite(value))
    throw RowError(field, "must be finite, got " + quote_for_message(text));
  return value;
}

bool parse_bool(std::string_view text, std::string_view field) {
  text = trim_blanks(text);
  if (text == "1" || text == "true") return true;
  if (text == "0" || text == "false") return false;
  if (text.empty()) throw RowError(field, "missing value");
  throw RowError(field, "not a boolean (0, 1, true, false): " + quote_for_message(text));
}

}  // namespace tidal::base
