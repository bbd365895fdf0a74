#include "traces/row_parser.h"

#include <cmath>

#include <fmt/format.h>

#include "base/row_error.h"
#include "traces/limits.h"

namespace tidal::traces {

std::unique_ptr<RowParser> make_row_parser(TraceFormat format) {
  switch (format) {
    case TraceFormat::azure:
      return make_azure_parser();
    case TraceFormat::mooncake:
      return make_mooncake_parser();
    case TraceFormat::burstgpt:
      return make_burstgpt_parser();
    case TraceFormat::vidur:
      return make_vidur_parser();
    case TraceFormat::tidal_jsonl:
      return make_tidal_jsonl_parser();
    case TraceFormat::tidal_csv:
      return make_tidal_csv_parser();
  }
  return make_tidal_jsonl_parser();  // unreachable: every enumerator is handled above
}

void reset_request(Request& request) {
  request.id = 0;
  request.arrival_s = 0.0;
  request.prompt_tokens = 0;
  request.output_tokens = 0;
  request.session_id.clear();
  request.turn = -1;
  request.tenant.clear();
  request.slo_class.clear();
  request.region.clear();
  request.prefix_blocks.clear();
  request.prefix_block_tokens = 0;
  request.deps.clear();
  request.think_time_s = 0.0;
  request.failed = false;
  request.priority.reset();
  request.model.clear();
  request.complexity.reset();
  request.is_private = false;
  request.request_bytes = -1;
  request.response_bytes = -1;
  request.adapter.clear();
}

int64_t checked_wire_bytes(int64_t bytes, std::string_view field) {
  if (!(bytes >= 0 && bytes <= base::kMaxWireBytes)) {
    throw base::RowError(field,
                         fmt::format("must be in [0, {}], got {}", base::kMaxWireBytes, bytes));
  }
  return bytes;
}

void check_tidal_request(const Request& request) {
  if (!(request.arrival_s >= 0.0) || request.arrival_s > base::kMaxArrivalS) {
    throw base::RowError("arrival_s", fmt::format("must be in [0, {}], got {}", base::kMaxArrivalS,
                                                  request.arrival_s));
  }
  if (request.id < 0) throw base::RowError("id", fmt::format("must be >= 0, got {}", request.id));
  if (request.turn < -1) {
    throw base::RowError("turn",
                         fmt::format("must be >= 0 (or -1 for none), got {}", request.turn));
  }
  if (request.complexity && !(*request.complexity >= 0.0 && *request.complexity <= 1.0)) {
    throw base::RowError("complexity",
                         fmt::format("must be in [0, 1], got {}", *request.complexity));
  }
  if (request.prefix_block_tokens < 0) {
    throw base::RowError("prefix_block_tokens",
                         fmt::format("must be >= 0, got {}", request.prefix_block_tokens));
  }
  if (request.prefix_block_tokens == 0 && !request.prefix_blocks.empty()) {
    throw base::RowError("prefix_block_tokens", "must be > 0 when prefix_blocks is given");
  }
  if (request.prefix_block_tokens > 0) {
    const int64_t num_blocks =
        (request.prompt_tokens + request.prefix_block_tokens - 1) / request.prefix_block_tokens;
    if (static_cast<int64_t>(request.prefix_blocks.size()) != num_blocks) {
      throw base::RowError(
          "prefix_blocks",
          fmt::format("{} blocks, but prompt_tokens {} needs ceil({}/{}) = {}",
                      request.prefix_blocks.size(), request.prompt_tokens, request.prompt_tokens,
                      request.prefix_block_tokens, num_blocks));
    }
  }
  for (const int64_t dep : request.deps) {
    if (dep < 0) throw base::RowError("deps", fmt::format("ids must be >= 0, got {}", dep));
  }
  if (!(request.think_time_s >= 0.0) || request.think_time_s > base::kMaxArrivalS) {
    throw base::RowError("think_time_s", fmt::format("must be in [0, {}], got {}",
                                                     base::kMaxArrivalS, request.think_time_s));
  }
  if (request.think_time_s > 0.0 && request.deps.empty()) {
    throw base::RowError("think_time_s", "needs deps (it counts from their finish)");
  }
}

}  // namespace tidal::traces
