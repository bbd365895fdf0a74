// `tidal trace convert` loses nothing: an output that is the input is refused, and a bad row
// late in the input leaves the previous output (or none), never a truncated file.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "test_util.h"
#include "traces/convert.h"
#include "traces/writer.h"

namespace tidal::traces {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

int num_entries(const std::string& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

constexpr const char* kGood =
    "arrived_at,num_prefill_tokens,num_decode_tokens\n0,10,2\n1,20,3\n2,30,4\n";

TEST(ConvertSafety, AnOutputThatIsTheInputIsRefusedAndTheInputKept) {
  testing::ScratchDir scratch;
  const std::string input = scratch.write("t.csv", kGood);
  for (const std::string& output : {input, scratch.file("./t.csv")}) {
    try {
      convert_trace(input, output, ReadOptions{});
      FAIL() << "expected an InputError for " << output;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()),
                output + ": is also the input (" + input + "); write to another path");
    }
    EXPECT_EQ(read_all(input), kGood);
  }
  // The same file under another name (a hard link) is the input too.
  std::filesystem::create_hard_link(input, scratch.file("link.csv"));
  EXPECT_THROW(convert_trace(input, scratch.file("link.csv"), ReadOptions{}), InputError);
  EXPECT_EQ(read_all(input), kGood);
}

TEST(ConvertSafety, ABadRowLateInTheInputLeavesThePreviousOutput) {
  testing::ScratchDir scratch;
  const std::string good = scratch.write("good.csv", kGood);
  const std::string output = scratch.file("out.jsonl");
  convert_trace(good, output, ReadOptions{});
  const std::string previous = read_all(output);
  ASSERT_EQ(read_trace(output).size(), 3u);

  std::string bad = kGood;
  for (int i = 3; i < 20000; ++i) bad += std::to_string(i) + ",10,2\n";  // past one flush
  bad += "20000,x,2\n";
  const std::string input = scratch.write("bad.csv", bad);
  try {
    convert_trace(input, output, ReadOptions{});
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), input + ":20002: num_prefill_tokens: not an integer: 'x'");
  }
  EXPECT_EQ(read_all(output), previous);
  EXPECT_EQ(num_entries(scratch.file("")), 3);  // good.csv, bad.csv, out.jsonl: no temporary

  const std::string fresh = scratch.file("fresh.csv");
  EXPECT_THROW(convert_trace(input, fresh, ReadOptions{}), InputError);
  EXPECT_FALSE(std::filesystem::exists(fresh));
}

TEST(ConvertSafety, AWriterDestroyedUnclosedLeavesNoFile) {
  testing::ScratchDir scratch;
  const std::string path = scratch.file("t.jsonl");
  {
    TraceWriter writer(path);
    Request r;
    r.prompt_tokens = 1;
    r.output_tokens = 1;
    writer.write(r);
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(num_entries(scratch.file("")), 0);
}

}  // namespace
}  // namespace tidal::traces
