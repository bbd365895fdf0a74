// Rows per second of the trace readers on one core, printed as JSON lines:
//   {"bench":"trace_parse","format":"azure","source":...,"rows":...,"seconds":...,"rows_per_s":...}
// "mode": "stream" counts rows through TraceReader::next() (the parse itself); "read_trace"
// also builds the vector of Requests. Real files are parsed repeatedly (from the page cache)
// until at least min_seconds have passed; the large CSV is written to a temporary file once.
// Targets: >= 2M CSV rows/s and >= 500k JSONL rows/s.
//   trace_parse [--large-rows N] [--min-seconds S]

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/option_pairs.h"
#include "bench/peak_rss.h"
#include "traces/reader.h"

namespace {

using tidal::Request;
using tidal::bench::peak_rss_mb;
using tidal::traces::ReadOptions;
using tidal::traces::TraceReader;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void print_line(const std::string& format, const std::string& source, int64_t num_rows,
                double seconds, nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json line = {
      {"bench", "trace_parse"}, {"format", format},
      {"source", source},       {"rows", num_rows},
      {"seconds", seconds},     {"rows_per_s", static_cast<double>(num_rows) / seconds}};
  line.update(extra);
  std::printf("%s\n", line.dump().c_str());
  std::fflush(stdout);
}

// Streams the file without keeping requests; returns the number of rows.
int64_t stream_rows(const std::string& path) {
  TraceReader reader(path, ReadOptions{});
  Request request;
  int64_t num_rows = 0;
  while (reader.next(request)) ++num_rows;
  return num_rows;
}

void bench_real_file(const std::string& format, const std::string& relative_path,
                     double min_seconds) {
  const std::string path = std::string(TIDAL_SHARED_DIR) + "/traces/" + relative_path;
  stream_rows(path);  // warm the page cache
  for (const bool keep : {false, true}) {
    int64_t num_rows = 0;
    int64_t num_passes = 0;
    const auto start = std::chrono::steady_clock::now();
    while (num_passes < 3 || seconds_since(start) < min_seconds) {
      num_rows +=
          keep ? static_cast<int64_t>(tidal::traces::read_trace(path).size()) : stream_rows(path);
      ++num_passes;
    }
    print_line(format, relative_path, num_rows, seconds_since(start),
               {{"passes", num_passes}, {"mode", keep ? "read_trace" : "stream"}});
  }
}

// An Azure-format CSV of num_rows rows with sorted timestamps and random lengths.
std::string write_large_azure_csv(int64_t num_rows) {
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("tidal_trace_parse_{}.csv", ::getpid()))
          .string();
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) throw std::runtime_error(path + ": " + std::strerror(errno));
  std::mt19937_64 rng(1);
  std::string buffer = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n";
  int64_t time_100ns = 0;  // 7 fractional digits, as in the Azure files
  for (int64_t row = 0; row < num_rows; ++row) {
    time_100ns += static_cast<int64_t>(rng() % 4'000'000);
    const int64_t seconds = time_100ns / 10'000'000;
    buffer +=
        fmt::format("2023-11-{:02d} {:02d}:{:02d}:{:02d}.{:07d},{},{}\r\n", 16 + seconds / 86400,
                    seconds / 3600 % 24, seconds / 60 % 60, seconds % 60, time_100ns % 10'000'000,
                    1 + rng() % 8000, 1 + rng() % 1000);
    if (buffer.size() > (1 << 20)) {
      std::fwrite(buffer.data(), 1, buffer.size(), file);
      buffer.clear();
    }
  }
  std::fwrite(buffer.data(), 1, buffer.size(), file);
  std::fclose(file);
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t large_rows = 2'000'000;
  double min_seconds = 1.0;
  constexpr std::string_view kUsage = "usage: trace_parse [--large-rows N] [--min-seconds S]";
  for (const auto& [key, value] :
       tidal::bench::option_pairs(argc, argv, {"--large-rows", "--min-seconds"}, kUsage)) {
    if (key == "--large-rows") {
      large_rows = tidal::bench::option_number(argv[0], key, value, int64_t{1}, kUsage);
    }
    if (key == "--min-seconds") {
      min_seconds = tidal::bench::option_number(argv[0], key, value, 0.0, kUsage);
    }
  }
  bench_real_file("azure", "azure2023/AzureLLMInferenceTrace_conv.csv", min_seconds);
  bench_real_file("mooncake", "mooncake/conversation_trace.jsonl", min_seconds);
  bench_real_file("vidur", "vidur/splitwise_conv.csv", min_seconds);

  const std::string path = write_large_azure_csv(large_rows);
  const double file_mb = static_cast<double>(std::filesystem::file_size(path)) / (1 << 20);
  stream_rows(path);  // warm the page cache
  const double rss_before_mb = peak_rss_mb();
  auto start = std::chrono::steady_clock::now();
  const int64_t streamed = stream_rows(path);
  print_line("azure", "generated", streamed, seconds_since(start),
             {{"mode", "stream"},
              {"file_mb", file_mb},
              {"peak_rss_growth_mb", peak_rss_mb() - rss_before_mb}});
  start = std::chrono::steady_clock::now();
  const auto requests = tidal::traces::read_trace(path);
  print_line("azure", "generated", static_cast<int64_t>(requests.size()), seconds_since(start),
             {{"mode", "read_trace"},
              {"file_mb", file_mb},
              {"peak_rss_growth_mb", peak_rss_mb() - rss_before_mb},
              {"bytes_per_request", sizeof(Request)}});
  std::filesystem::remove(path);
  return 0;
}
