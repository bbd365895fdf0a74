// base/output_files.h: files appear whole or not at all.
#include "base/output_files.h"

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "test_folder.h"

namespace tidal::base {
namespace {

using testing::kScratch;
using testing::names_in;
using testing::read_all;

TEST(OutputFiles, CreatesNestedFoldersAndWritesFiles) {
  const ScratchFolder scratch(kScratch, "nested");
  const std::filesystem::path& root = scratch.path();
  const std::string dir = (root / "a" / "b").string();
  create_output_folder(dir);
  create_output_folder(dir);  // an existing folder is fine
  write_output_file(dir + "/x.csv", [](std::ostream& out) { out << "h\n1\n"; });
  write_output_text(dir + "/y.txt", "text");
  write_output_text(dir + "/y.txt", "new");  // replaces
  EXPECT_EQ(read_all(root / "a" / "b" / "x.csv"), "h\n1\n");
  EXPECT_EQ(read_all(root / "a" / "b" / "y.txt"), "new");
  EXPECT_EQ(names_in(root / "a" / "b"), (std::vector<std::string>{"x.csv", "y.txt"}));
  std::filesystem::remove_all(root);
}

TEST(OutputFiles, AFileWhereTheFolderShouldBeIsAnInputError) {
  const ScratchFolder scratch(kScratch, "taken");
  const std::filesystem::path& root = scratch.path();
  write_output_text((root / "taken").string(), "");
  const std::string dir = (root / "taken").string();
  try {
    create_output_folder(dir);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir + ": cannot create output folder: ", 0), 0u)
        << e.what();
  }
  std::filesystem::remove_all(root);
}

TEST(OutputFiles, AnUnopenablePathIsAnInputError) {
  const ScratchFolder scratch(kScratch, "unopenable");
  const std::filesystem::path& root = scratch.path();
  const std::string path = (root / "missing" / "x.csv").string();
  try {
    write_output_text(path, "x");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot open for writing");
  }
  std::filesystem::remove_all(root);
}

// A long run checks its output before it starts: an unwritable path fails now, a writable one
// is left as it was (absent, or the previous file) with no temporary beside it.
TEST(OutputFiles, CheckingAnOutputLeavesNothingBehind) {
  const ScratchFolder scratch(kScratch, "check_writable");
  const std::filesystem::path& root = scratch.path();
  const std::string missing = (root / "missing" / "cal.json").string();
  try {
    check_output_writable(missing);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), missing + ": cannot open for writing");
  }
  check_output_writable((root / "new.json").string());
  EXPECT_TRUE(names_in(root).empty());
  write_output_text((root / "old.json").string(), "previous");
  check_output_writable((root / "old.json").string());
  EXPECT_EQ(names_in(root), std::vector<std::string>{"old.json"});
  EXPECT_EQ(read_all((root / "old.json").string()), "previous");
}

// A writer that fails half-way leaves the previous file byte for byte and no temporary.
TEST(OutputFiles, AWriterThatThrowsHalfWayLeavesThePreviousFile) {
  const ScratchFolder scratch(kScratch, "throws");
  const std::filesystem::path& root = scratch.path();
  const std::string path = (root / "requests.csv").string();
  write_output_text(path, "id\n0\n1\n");
  EXPECT_THROW(write_output_file(path,
                                 [](std::ostream& out) {
                                   out << "id\n0\n";  // half of the new file
                                   throw std::runtime_error("row 2 is bad");
                                 }),
               std::runtime_error);
  EXPECT_EQ(read_all(path), "id\n0\n1\n");
  EXPECT_EQ(names_in(root), std::vector<std::string>{"requests.csv"});
  std::filesystem::remove_all(root);
}

TEST(OutputFiles, AThrowingWriterLeavesNoFileWhereThereWasNone) {
  const ScratchFolder scratch(kScratch, "throws_new");
  const std::filesystem::path& root = scratch.path();
  EXPECT_THROW(write_output_file((root / "new.csv").string(),
                                 [](std::ostream& out) {
                                   out << "id\n";
                                   throw InputError("bad");
                                 }),
               InputError);
  EXPECT_EQ(names_in(root), std::vector<std::string>{});
  std::filesystem::remove_all(root);
}

TEST(OutputFiles, APendingFileAppearsOnlyOnCommit) {
  const ScratchFolder scratch(kScratch, "pending");
  const std::filesystem::path& root = scratch.path();
  const std::string path = (root / "t.jsonl").string();
  {
    PendingFile file(path);
    file.stream() << "{\"id\":0}\n";
    EXPECT_FALSE(std::filesystem::exists(path));
    file.commit();
  }
  EXPECT_EQ(read_all(path), "{\"id\":0}\n");
  {
    PendingFile abandoned(path);
    abandoned.stream() << "{\"id\":";
  }  // destroyed uncommitted
  EXPECT_EQ(read_all(path), "{\"id\":0}\n");
  EXPECT_EQ(names_in(root), std::vector<std::string>{"t.jsonl"});
  std::filesystem::remove_all(root);
}

// FNV-1a 64 reference values: "" is the offset basis, "a" is 0xaf63dc4c8601ec8c.
TEST(OutputFiles, TheDigestIsTheLengthAndFnv1aOfTheBytes) {
  EXPECT_EQ(hex64(fnv1a64("")), "cbf29ce484222325");
  EXPECT_EQ(hex64(fnv1a64("a")), "af63dc4c8601ec8c");
  EXPECT_EQ(fnv1a64("ab"), fnv1a64("b", fnv1a64("a")));
  const ScratchFolder scratch(kScratch, "digest");
  const std::filesystem::path& root = scratch.path();
  const FileDigest digest =
      write_output_file((root / "a.txt").string(), [](std::ostream& out) { out << 'a'; });
  EXPECT_EQ(digest.num_bytes, 1);
  EXPECT_EQ(digest.fnv1a64, "af63dc4c8601ec8c");
  std::filesystem::remove_all(root);
}

TEST(OutputFiles, AnOutputThatIsTheInputIsRefused) {
  const ScratchFolder scratch(kScratch, "same");
  const std::filesystem::path& root = scratch.path();
  const std::string input = (root / "t.csv").string();
  write_output_text(input, "x");
  const std::string other_spelling = (root / "." / "t.csv").string();
  EXPECT_TRUE(same_file(input, other_spelling));
  EXPECT_FALSE(same_file(input, (root / "u.csv").string()));
  EXPECT_TRUE(same_file((root / "new.csv").string(), (root / "a" / ".." / "new.csv").string()));
  try {
    check_output_is_not_input(other_spelling, input);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              other_spelling + ": is also the input (" + input + "); write to another path");
  }
  EXPECT_EQ(read_all(input), "x");
  std::filesystem::remove_all(root);
}

TEST(OutputFiles, TemporarySiblingsAreHiddenBesideTheTargetAndDistinct) {
  const std::string a = temporary_sibling("out/run/", "new");
  const std::string b = temporary_sibling("out/run", "new");
  EXPECT_EQ(a.rfind("out/.run.tidal-new-", 0), 0u) << a;
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace tidal::base
