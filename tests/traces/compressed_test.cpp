// Trace readers on gzip and zstd copies of the real traces: the same requests as the plain
// files, and bad compressed data an InputError even with skip_bad.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/input_error.h"
#include "tests/base/compress_util.h"
#include "tests/traces/test_util.h"
#include "traces/reader.h"
#include "traces/writer.h"

namespace tidal::traces {
namespace {

using testing::ScratchDir;
using testing::shared_trace;

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(CompressedTraces, SameRequestsAsThePlainFiles) {
  const ScratchDir dir;
  for (const std::string& trace : {testing::kAzureCode, testing::kMooncake, testing::kVidurConv}) {
    const std::string plain = shared_trace(trace);
    const std::string text = file_bytes(plain);
    const std::vector<Request> expected = read_trace(plain);
    ASSERT_FALSE(expected.empty()) << trace;
    EXPECT_EQ(read_trace(dir.write("t.gz", tidal::base::testing::gzip_bytes(text))), expected)
        << trace;
    EXPECT_EQ(read_trace(dir.write("t.zst", tidal::base::testing::zstd_bytes(text))), expected)
        << trace;
  }
}

TEST(CompressedTraces, TidalJsonlRoundTripThroughGzip) {
  const ScratchDir dir;
  const std::vector<Request> requests = read_trace(shared_trace(testing::kMooncake));
  std::ostringstream jsonl;
  write_jsonl(requests, jsonl);
  const std::string path = dir.write("own.jsonl.gz", tidal::base::testing::gzip_bytes(jsonl.str()));
  ReadReport report;
  EXPECT_EQ(read_trace(path, {}, &report), requests);
  EXPECT_EQ(report.num_rows, static_cast<int64_t>(requests.size()));
}

TEST(CompressedTraces, TruncatedIsAnInputErrorEvenWithSkipBad) {
  const ScratchDir dir;
  const std::string packed =
      tidal::base::testing::zstd_bytes(file_bytes(shared_trace(testing::kAzureCode)));
  const std::string path = dir.write("cut.csv.zst", packed.substr(0, packed.size() / 2));
  ReadOptions options;
  options.skip_bad = true;
  try {
    read_trace(path, options);
    FAIL() << "no error";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.rfind(path + ":", 0), 0u) << message;
    EXPECT_NE(message.find(": truncated zstd data: the file ends inside a frame"),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace tidal::traces
