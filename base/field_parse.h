// Parsing one text field into a number with std::from_chars; failures throw RowError naming
// the field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tidal::base {

// Drops spaces and tabs at both ends.
std::string_view trim_blanks(std::string_view text);
// 'text' for an error message: at most 40 bytes, non-printable bytes as \xNN.
std::string quote_for_message(std::string_view text);

int64_t parse_int64(std::string_view text, std::string_view field);
uint64_t parse_uint64(std::string_view text, std::string_view field);
// A count of tokens: an integer >= 0.
int64_t parse_token_count(std::string_view text, std::string_view field);
// A finite floating-point number.
double parse_finite_double(std::string_view text, std::string_view field);
// "0"/"1"/"true"/"false".
bool parse_bool(std::string_view text, std::string_view field);

}  // namespace tidal::base
