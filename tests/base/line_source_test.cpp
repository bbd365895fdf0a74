// LineSource on plain, gzip and zstd files: the same lines whatever the compression, errors
// naming the file and line for bad compressed data.
#include "base/line_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "base/input_error.h"
#include "tests/base/compress_util.h"
#include "tests/base/test_folder.h"

namespace tidal::base {
namespace {

using testing::gzip_bytes;
using testing::zstd_bytes;

enum class Codec { gzip, zstd };

std::string compressed(Codec codec, std::string_view text) {
  return codec == Codec::gzip ? gzip_bytes(text) : zstd_bytes(text);
}

std::string write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

std::vector<std::string> lines_of(LineSource& source) {
  std::vector<std::string> lines;
  std::string_view line;
  while (source.next_line(line)) lines.emplace_back(line);
  return lines;
}

std::vector<std::string> lines_of_file(const std::string& path) {
  return lines_of(*LineSource::open_file(path));
}

// The InputError message reading `path` ends in ("" when it reads to the end).
std::string error_reading(const std::string& path) {
  try {
    lines_of_file(path);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

// Random lines of printable bytes, `num_lines` of them, ending in "\n".
std::string random_lines(int num_lines, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string text;
  for (int i = 0; i < num_lines; ++i) {
    const size_t length = rng() % 300;
    for (size_t j = 0; j < length; ++j) text += static_cast<char>(' ' + rng() % 95);
    text += '\n';
  }
  return text;
}

class CompressedLines : public ::testing::TestWithParam<Codec> {
 protected:
  std::string codec_name() const { return GetParam() == Codec::gzip ? "gzip" : "zstd"; }
  const ScratchFolder scratch_{testing::kScratch,
                               "line_source_" + std::to_string(static_cast<int>(GetParam()))};
  const std::filesystem::path& root_ = scratch_.path();
};

TEST_P(CompressedLines, SameLinesAsThePlainFile) {
  const std::string long_line(3 * (size_t{1} << 20) + 17, 'x');  // longer than every chunk
  const std::vector<std::string> texts = {
      "",
      "one line, no break",
      "a\nb\nc\n",
      "crlf\r\nlines\r\n\r\nlast\r\n",
      "\xEF\xBB\xBF{\"bom\": 1}\nsecond\n",
      "\n\n\nblank lines only\n\n",
      "before\n" + long_line + "\nafter",
      random_lines(20'000, 7),
  };
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::filesystem::path stem = root_ / std::to_string(i);
    const std::string plain = write_file(stem.string() + ".txt", texts[i]);
    const std::string packed = write_file(stem.string() + ".z", compressed(GetParam(), texts[i]));
    const std::vector<std::string> expected = lines_of_file(plain);
    EXPECT_EQ(lines_of_file(packed), expected) << "text " << i;
    EXPECT_EQ(lines_of(*LineSource::from_text(texts[i])), expected) << "text " << i;
  }
}

TEST_P(CompressedLines, ToldByTheFirstBytesNotTheName) {
  const std::string text = "x,y\n1,2\n";
  const std::string renamed = write_file(root_ / "trace.csv", compressed(GetParam(), text));
  EXPECT_EQ(lines_of_file(renamed), (std::vector<std::string>{"x,y", "1,2"}));
  const std::string plain_named_gz = write_file(root_ / "plain.csv.gz", text);
  EXPECT_EQ(lines_of_file(plain_named_gz), (std::vector<std::string>{"x,y", "1,2"}));
}

TEST_P(CompressedLines, ConcatenatedMembersReadAsOne) {
  const std::string first = "a\nsplit ";
  const std::string second = "line\nb\n";
  const std::string path =
      write_file(root_ / "two.z", compressed(GetParam(), first) + compressed(GetParam(), second) +
                                      compressed(GetParam(), "") + compressed(GetParam(), "c"));
  EXPECT_EQ(lines_of_file(path), (std::vector<std::string>{"a", "split line", "b", "c"}));
}

TEST_P(CompressedLines, ProgressInCompressedBytes) {
  const std::string text = random_lines(40'000, 11);  // several chunks of decompressed bytes
  const std::string packed = compressed(GetParam(), text);
  const std::string path = write_file(root_ / "p.z", packed);
  auto source = LineSource::open_file(path);
  EXPECT_EQ(source->total_bytes(), static_cast<int64_t>(packed.size()));
  std::string_view line;
  int64_t num_lines = 0;
  int64_t halfway_bytes = 0;
  while (source->next_line(line)) {
    if (++num_lines == 20'000) halfway_bytes = source->bytes_returned();
    EXPECT_LE(source->bytes_returned(), source->total_bytes());
  }
  EXPECT_EQ(num_lines, 40'000);
  // Half the lines reach about half the compressed bytes; all of them, all.
  EXPECT_GT(halfway_bytes, source->total_bytes() * 4 / 10);
  EXPECT_LT(halfway_bytes, source->total_bytes() * 6 / 10);
  EXPECT_EQ(source->bytes_returned(), source->total_bytes());
}

TEST_P(CompressedLines, TruncatedFileIsAnInputErrorNamingFileAndLine) {
  const std::string packed = compressed(GetParam(), random_lines(20'000, 3));
  for (const size_t kept : {packed.size() - 1, packed.size() / 2, size_t{6}}) {
    const std::string path = write_file(root_ / "cut.z", packed.substr(0, kept));
    const std::string message = error_reading(path);
    EXPECT_EQ(message.rfind(path + ":", 0), 0u) << message;
    EXPECT_NE(message.find(": truncated " + codec_name() + " data: the file ends inside a"),
              std::string::npos)
        << message;
  }
  // The line is the one being read: all of the first chunk's lines came out before.
  const std::string path = write_file(root_ / "cut.z", packed.substr(0, packed.size() - 1));
  auto source = LineSource::open_file(path);
  std::string_view line;
  try {
    while (source->next_line(line)) {
    }
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(std::string(error.what())
                  .rfind(path + ":" + std::to_string(source->line_number() + 1) + ": truncated", 0),
              0u)
        << error.what();
  }
}

TEST_P(CompressedLines, GarbageAfterTheMagicIsAnInputError) {
  const std::string magic = GetParam() == Codec::gzip ? "\x1f\x8b" : "\x28\xb5\x2f\xfd";
  std::mt19937_64 rng(5);
  std::string garbage = magic;
  for (int i = 0; i < 5000; ++i) garbage += static_cast<char>(rng());
  const std::string path = write_file(root_ / "garbage.z", garbage);
  const std::string message = error_reading(path);
  EXPECT_EQ(message.rfind(path + ":1: corrupt " + codec_name() + " data at compressed byte ", 0),
            0u)
      << message;
  const std::string magic_only = write_file(root_ / "magic_only.z", magic);
  EXPECT_EQ(error_reading(magic_only).rfind(magic_only + ":1: truncated " + codec_name(), 0), 0u)
      << error_reading(magic_only);
}

TEST_P(CompressedLines, BytesAfterTheLastMemberAreAnError) {
  const std::string path =
      write_file(root_ / "tail.z", compressed(GetParam(), "a\nb\n") + "not compressed\n");
  const std::string message = error_reading(path);
  EXPECT_NE(message.find("corrupt " + codec_name() + " data"), std::string::npos) << message;
}

TEST_P(CompressedLines, FlippedByteIsAnInputError) {
  std::string packed = compressed(GetParam(), random_lines(5'000, 9));
  packed[packed.size() / 2] = static_cast<char>(packed[packed.size() / 2] ^ 0x55);
  const std::string path = write_file(root_ / "flipped.z", packed);
  // gzip members carry a CRC-32, zstd frames a checksum (as the zstd tool writes them).
  const std::string message = error_reading(path);
  EXPECT_EQ(message.rfind(path + ":", 0), 0u) << message;
  EXPECT_NE(message.find("corrupt " + codec_name() + " data"), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(Codecs, CompressedLines, ::testing::Values(Codec::gzip, Codec::zstd),
                         [](const auto& info) {
                           return std::string(info.param == Codec::gzip ? "gzip" : "zstd");
                         });

TEST(PlainLines, EmptyFileHasNoLines) {
  const ScratchFolder scratch(testing::kScratch, "line_source_plain");
  const std::filesystem::path& root = scratch.path();
  EXPECT_TRUE(lines_of_file(write_file(root / "empty.txt", "")).empty());
  EXPECT_TRUE(lines_of_file(write_file(root / "one.txt", "\x1f")).size() == 1);
}

TEST(PlainLines, MissingFileAndDirectory) {
  const ScratchFolder scratch(testing::kScratch, "line_source_missing");
  const std::filesystem::path& root = scratch.path();
  EXPECT_EQ(error_reading((root / "none.gz").string()),
            (root / "none.gz").string() + ": cannot open: No such file or directory");
  EXPECT_EQ(error_reading(root.string()), root.string() + ": is a directory, not a trace file");
}

}  // namespace
}  // namespace tidal::base
