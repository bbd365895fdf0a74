// Text of the CSV files tidal writes (run folders, plan.csv, tidal CSV traces): field quoting
// and the fixed number formats, so equal runs give byte-identical files. `Out` is any
// character buffer with push_back and append (std::string, fmt::memory_buffer).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace tidal::base {

// Seconds from nanoseconds with exactly six decimals, rounded to the nearest microsecond
// (halves away from zero): 1'234'567'500 -> "1.234568", -1500 -> "-0.000002".
std::string format_seconds(int64_t ns);

// `text` inside double quotes, each quote in it doubled.
template <typename Out>
void append_quoted_csv(Out& out, std::string_view text) {
  out.push_back('"');
  for (const char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

// A CSV field: quoted (append_quoted_csv) when it holds a comma, quote or line break.
template <typename Out>
void append_csv_field(Out& out, std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) {
    out.append(text);
  } else {
    append_quoted_csv(out, text);
  }
}

// format_seconds(ns); nothing for a time that has not happened (ns < 0).
template <typename Out>
void append_seconds_if_set(Out& out, int64_t ns) {
  if (ns >= 0) out.append(format_seconds(ns));
}

// The value with six decimals; nothing when empty.
template <typename Out>
void append_fixed6_if_set(Out& out, const std::optional<double>& value) {
  if (value) fmt::format_to(std::back_inserter(out), "{:.6f}", *value);
}

// Each of `values` as `append_one(out, value)` writes it, the fields comma-separated.
template <typename Out, typename T, typename AppendOne>
void append_comma_separated(Out& out, std::initializer_list<T> values, AppendOne append_one) {
  for (const T* v = values.begin(); v != values.end(); ++v) {
    if (v != values.begin()) out.push_back(',');
    append_one(out, *v);
  }
}

// Several fields, comma-separated, each as the one-field function above writes it.
template <typename Out>
void append_csv_fields(Out& out, std::initializer_list<std::string_view> texts) {
  append_comma_separated(out, texts, append_csv_field<Out>);
}
template <typename Out>
void append_seconds_fields_if_set(Out& out, std::initializer_list<int64_t> times_ns) {
  append_comma_separated(out, times_ns, append_seconds_if_set<Out>);
}
template <typename Out>
void append_fixed6_fields_if_set(Out& out, std::initializer_list<std::optional<double>> values) {
  append_comma_separated(out, values, append_fixed6_if_set<Out>);
}

// Writes `buf` to `out` and empties it once it holds more than 1 MiB (long files are written in
// pieces of about that size).
template <typename Buffer>
void flush_if_large(Buffer& buf, std::ostream& out) {
  if (buf.size() > (1 << 20)) {
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    buf.clear();
  }
}

}  // namespace tidal::base
