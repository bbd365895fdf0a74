// Trace file formats tidal reads and writes, their names, and detection from the first line.
// Detection rules are documented in docs/traces.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tidal::traces {

enum class TraceFormat { azure, mooncake, burstgpt, vidur, tidal_jsonl, tidal_csv };

// "azure", "mooncake", "burstgpt", "vidur", "tidal_jsonl" (or "jsonl"), "tidal_csv" (or "csv").
// Throws InputError naming the accepted names on anything else.
TraceFormat parse_format_name(std::string_view name);
std::string_view format_name(TraceFormat format);
// Every format, in enum order.
const std::vector<TraceFormat>& all_formats();

// Reads the first line of `path` and decides its format. InputError when the file is missing,
// a directory, empty, or its first line matches no known format.
TraceFormat detect_format(const std::string& path);
// The same rules on an already-read first line (without its line break). `source` and
// `line_number` place it in error messages.
TraceFormat detect_format_from_first_line(std::string_view first_line, const std::string& source,
                                          int64_t line_number = 1);

}  // namespace tidal::traces
