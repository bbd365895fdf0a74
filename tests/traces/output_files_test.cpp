#include "traces/output_files.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "traces/input_error.h"

namespace tidal::traces {
namespace {

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// An empty folder of its own for each test, under the system's temporary folder.
std::filesystem::path fresh_root(const std::string& test) {
  const auto root = std::filesystem::temp_directory_path() /
                    ("tidal_output_files_" + std::to_string(::getpid()) + "_" + test);
  std::filesystem::remove_all(root);
  return root;
}

TEST(OutputFiles, CreatesNestedFoldersAndWritesFiles) {
  const auto root = fresh_root("nested");
  const std::string dir = (root / "a" / "b").string();
  create_output_folder(dir);
  create_output_folder(dir);  // an existing folder is fine
  write_output_file(dir + "/x.csv", [](std::ostream& out) { out << "h\n1\n"; });
  write_output_text(dir + "/y.txt", "text");
  write_output_text(dir + "/y.txt", "new");  // truncates
  EXPECT_EQ(read_all(root / "a" / "b" / "x.csv"), "h\n1\n");
  EXPECT_EQ(read_all(root / "a" / "b" / "y.txt"), "new");
  std::filesystem::remove_all(root);
}

TEST(OutputFiles, AFileWhereTheFolderShouldBeIsAnInputError) {
  const auto root = fresh_root("taken");
  create_output_folder(root.string());
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
  const auto root = fresh_root("unopenable");
  const std::string path = (root / "missing" / "x.csv").string();
  try {
    write_output_text(path, "x");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cannot open for writing");
  }
}

}  // namespace
}  // namespace tidal::traces
