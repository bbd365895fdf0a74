// base/run_folder.h: a run folder is replaced as a whole or not at all.
#include "base/run_folder.h"

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "test_folder.h"

namespace tidal::base {
namespace {

namespace fs = std::filesystem;
using testing::kScratch;
using testing::names_in;
using testing::read_all;

// A run folder holding summary.json, a.csv and, when `with_extra`, b.csv.
void write_run(const fs::path& dir, const std::string& a, bool with_extra) {
  RunFolderWriter folder(dir.string());
  folder.write_file("a.csv", [&](std::ostream& out) { out << a; });
  if (with_extra) folder.write_file("b.csv", [](std::ostream& out) { out << "b\n"; });
  folder.finish(nlohmann::ordered_json{{"metrics", {{"n", a.size()}}}});
}

TEST(RunFolder, SummaryIsStampedWithKindRunIdAndTheFilesDigests) {
  const ScratchFolder scratch(kScratch, "stamp");
  const fs::path& root = scratch.path();
  write_run(root / "run", "x\n", true);
  EXPECT_EQ(names_in(root), std::vector<std::string>{"run"});  // no temporary left
  EXPECT_EQ(names_in(root / "run"), (std::vector<std::string>{"a.csv", "b.csv", "summary.json"}));
  const auto summary = nlohmann::ordered_json::parse(read_all(root / "run" / "summary.json"));
  std::vector<std::string> keys;
  for (const auto& [key, value] : summary.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"kind", "run_id", "files", "metrics"}));
  EXPECT_EQ(summary["kind"], "tidal-run");
  EXPECT_EQ(summary["files"]["a.csv"]["bytes"], 2);
  EXPECT_EQ(summary["files"]["a.csv"]["fnv1a64"], hex64(fnv1a64("x\n")));
  EXPECT_EQ(summary["run_id"].get<std::string>().size(), 16u);
  EXPECT_TRUE(is_tidal_run_folder((root / "run").string()));
  const FileDigest digest = digest_file((root / "run" / "a.csv").string());
  EXPECT_EQ(digest.num_bytes, 2);
  EXPECT_EQ(digest.fnv1a64, summary["files"]["a.csv"]["fnv1a64"]);
  fs::remove_all(root);
}

TEST(RunFolder, EqualRunsGetEqualIdsAndARerunDropsFilesItDidNotWrite) {
  const ScratchFolder scratch(kScratch, "rerun");
  const fs::path& root = scratch.path();
  write_run(root / "run", "x\n", true);
  const std::string first = read_all(root / "run" / "summary.json");
  write_run(root / "run", "x\n", true);
  EXPECT_EQ(read_all(root / "run" / "summary.json"), first);  // byte-identical rerun
  write_run(root / "run", "y\n", false);
  EXPECT_EQ(names_in(root / "run"), (std::vector<std::string>{"a.csv", "summary.json"}));
  EXPECT_EQ(read_all(root / "run" / "a.csv"), "y\n");
  EXPECT_NE(read_all(root / "run" / "summary.json"), first);
  EXPECT_EQ(names_in(root), std::vector<std::string>{"run"});
  fs::remove_all(root);
}

// A writer that throws half-way through a file leaves the previous run as it was.
TEST(RunFolder, AFailedWriteLeavesThePreviousRunIntact) {
  const ScratchFolder scratch(kScratch, "failed");
  const fs::path& root = scratch.path();
  write_run(root / "run", "old\n", true);
  const std::string summary = read_all(root / "run" / "summary.json");
  EXPECT_THROW(
      {
        RunFolderWriter folder((root / "run").string());
        folder.write_file("a.csv", [](std::ostream& out) { out << "new\n"; });
        folder.write_file("b.csv", [](std::ostream& out) {
          out << "half";
          throw std::runtime_error("interrupted");
        });
        folder.finish(nlohmann::ordered_json::object());
      },
      std::runtime_error);
  EXPECT_EQ(names_in(root), std::vector<std::string>{"run"});
  EXPECT_EQ(read_all(root / "run" / "a.csv"), "old\n");
  EXPECT_EQ(read_all(root / "run" / "b.csv"), "b\n");
  EXPECT_EQ(read_all(root / "run" / "summary.json"), summary);
  fs::remove_all(root);
}

// The swap fails when the new folder is moved in: the old run is put back, whole.
TEST(RunFolder, AFailedSwapPutsThePreviousRunBack) {
  const ScratchFolder scratch(kScratch, "swap");
  const fs::path& root = scratch.path();
  write_run(root / "run", "old\n", true);
  const std::string summary = read_all(root / "run" / "summary.json");
  int num_renames = 0;
  const RenameFolder second_rename_fails = [&](const fs::path& from, const fs::path& to,
                                               std::error_code& ec) {
    if (++num_renames == 2) {
      ec = std::make_error_code(std::errc::io_error);
      return;
    }
    fs::rename(from, to, ec);
  };
  try {
    RunFolderWriter folder((root / "run").string(), second_rename_fails);
    folder.write_file("a.csv", [](std::ostream& out) { out << "new\n"; });
    folder.finish(nlohmann::ordered_json::object());
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  (root / "run").string() + ": cannot move the new run folder into place: ", 0),
              0u)
        << e.what();
  }
  EXPECT_EQ(num_renames, 3);  // aside, in (failed), back
  EXPECT_EQ(names_in(root), std::vector<std::string>{"run"});
  EXPECT_EQ(read_all(root / "run" / "a.csv"), "old\n");
  EXPECT_EQ(read_all(root / "run" / "summary.json"), summary);
  fs::remove_all(root);
}

TEST(RunFolder, AFolderTidalDidNotWriteIsNeverReplaced) {
  const ScratchFolder scratch(kScratch, "foreign");
  const fs::path& root = scratch.path();
  fs::create_directories(root / "mine");
  write_output_text((root / "mine" / "notes.txt").string(), "keep me");
  write_output_text((root / "mine" / "summary.json").string(), "{\"kind\": \"other\"}");
  const std::string dir = (root / "mine").string();
  try {
    RunFolderWriter folder(dir);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(dir + ": the folder holds files and is not a tidal run "
                                                "folder",
                                          0),
              0u)
        << e.what();
  }
  EXPECT_EQ(read_all(root / "mine" / "notes.txt"), "keep me");
  EXPECT_EQ(names_in(root), std::vector<std::string>{"mine"});
  fs::create_directories(root / "empty");
  EXPECT_NO_THROW(check_run_folder_target((root / "empty").string()));
  EXPECT_NO_THROW(check_run_folder_target((root / "absent" / "run").string()));
  fs::remove_all(root);
}

TEST(RunFolder, EmptyDotAndFilePathsAreRefused) {
  const ScratchFolder scratch(kScratch, "paths");
  const fs::path& root = scratch.path();
  EXPECT_THROW(check_run_folder_target(""), InputError);
  EXPECT_THROW(check_run_folder_target("."), InputError);
  EXPECT_THROW(check_run_folder_target(".."), InputError);
  EXPECT_THROW(check_run_folder_target("/"), InputError);
  write_output_text((root / "file").string(), "x");
  EXPECT_THROW(check_run_folder_target((root / "file").string()), InputError);
  EXPECT_EQ(read_all(root / "file"), "x");
  fs::remove_all(root);
}

TEST(RunFolder, ATrailingSeparatorNamesTheSameFolder) {
  const ScratchFolder scratch(kScratch, "slash");
  const fs::path& root = scratch.path();
  write_run(root / "run", "x\n", false);
  write_run((root / "run").string() + "/", "y\n", false);
  EXPECT_EQ(names_in(root), std::vector<std::string>{"run"});
  EXPECT_EQ(read_all(root / "run" / "a.csv"), "y\n");
  fs::remove_all(root);
}

}  // namespace
}  // namespace tidal::base
