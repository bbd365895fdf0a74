// trace.json in the Chrome trace-event format (opens in Perfetto and chrome://tracing).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/run_output.h"

namespace tidal::sim {
namespace {

// Microseconds with three decimals (the format's time unit), from nanoseconds.
void append_us(fmt::memory_buffer& buf, int64_t ns) {
  fmt::format_to(std::back_inserter(buf), "{}.{:03}", ns / 1000, ns % 1000);
}

std::string json_string(const std::string& text) {
  return nlohmann::json(text).dump();
}

}  // namespace

void write_chrome_trace(const Scenario& scenario, const RunResult& result, std::ostream& out) {
  fmt::memory_buffer buf;
  buf.append(std::string_view("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"));
  bool first = true;
  auto separator = [&] {
    if (!first) buf.append(std::string_view(",\n"));
    first = false;
  };
  for (size_t p = 0; p < scenario.pools.size(); ++p) {
    const PoolSpec& pool = scenario.pools[p];
    separator();
    fmt::format_to(
        std::back_inserter(buf),
        "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":{}}}}}", p,
        json_string(fmt::format("pool {}: {} x {} on {} (tp {})", pool.name, pool.num_replicas,
                                pool.model, pool.gpu, pool.deployment.tp)));
  }
  for (size_t r = 0; r < result.replicas.size(); ++r) {
    separator();
    fmt::format_to(std::back_inserter(buf),
                   "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},"
                   "\"args\":{{\"name\":\"replica {}\"}}}}",
                   result.replicas[r].pool, r, r);
  }
  for (const StepSlice& s : result.slices) {
    separator();
    fmt::format_to(std::back_inserter(buf),
                   "{{\"name\":\"step\",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":",
                   result.replicas[static_cast<size_t>(s.replica)].pool, s.replica);
    append_us(buf, s.start_ns);
    buf.append(std::string_view(",\"dur\":"));
    append_us(buf, s.end_ns - s.start_ns);
    fmt::format_to(std::back_inserter(buf), ",\"args\":{{\"num_seqs\":{},\"num_tokens\":{}}}}}",
                   s.num_seqs, s.num_tokens);
    if (buf.size() > (1 << 20)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  fmt::format_to(std::back_inserter(buf),
                 "\n],\"otherData\":{{\"num_slices_written\":{},\"num_slices_dropped\":{}}}}}\n",
                 result.slices.size(), result.num_slices_dropped);
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace tidal::sim
