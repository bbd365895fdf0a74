// `tidal trace convert`: any readable trace to tidal JSONL or CSV, streamed row by row.
#pragma once

#include <string>

#include "traces/reader.h"

namespace tidal::traces {

// Reads `input_path` and writes every request to `output_path` (format from its extension).
// Returns the reader's report (rows written, rows skipped with their messages). InputError when
// `output_path` names the input file; a bad row leaves `output_path` as it was (TraceWriter).
ReadReport convert_trace(const std::string& input_path, const std::string& output_path,
                         const ReadOptions& options);

}  // namespace tidal::traces
