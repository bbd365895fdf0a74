#include "traces/convert.h"

#include "base/output_files.h"
#include "traces/writer.h"

namespace tidal::traces {

ReadReport convert_trace(const std::string& input_path, const std::string& output_path,
                         const ReadOptions& options) {
  output_format_for_path(output_path);  // a bad extension fails before any reading
  if (output_path != "-") base::check_output_is_not_input(output_path, input_path);
  TraceReader reader(input_path, options);
  TraceWriter writer(output_path);
  Request request;
  while (reader.next(request)) writer.write(request);
  writer.close();
  return reader.report();
}

}  // namespace tidal::traces
