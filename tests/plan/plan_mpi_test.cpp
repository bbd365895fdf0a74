// `mpirun -np 2 tidal plan ...` writes the same plan as the threaded single-process run.
// Skipped (with a message) when mpirun is absent or the build has no MPI.
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "plan/transport.h"
#include "tests/plan/plan_fixture.h"

namespace tidal::plan {
namespace {

namespace fs = std::filesystem;

bool on_path(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

TEST(PlanMpi, TwoRanksMatchTheThreadedRun) {
  if (!have_mpi()) GTEST_SKIP() << "this build has no MPI (libopenmpi-dev not found by CMake)";
  if (!on_path("mpirun")) GTEST_SKIP() << "mpirun is not on PATH (Debian package openmpi-bin)";
  const ScratchFolder scratch(testing::kScratch, "mpi");
  const fs::path& dir = scratch.path();
  const std::string scenario =
      testing::write_json(dir / "scenario.json", testing::small_scenario());
  const std::string space = testing::write_json(dir / "space.json", nlohmann::json::parse(R"({
    "dimensions": {"gpu": ["H100-SXM", "A100-80GB"], "tp": [1, 3],
                   "scheduler.policy": ["static", "continuous"], "num_replicas": [1, 2]}})"));
  const std::string args =
      " plan " + scenario + " --search " + space + " --slo 'p99_ttft<=0.5s' --quiet --out ";
  const std::string threaded = std::string(TIDAL_BINARY) + args + (dir / "threaded").string() +
                               " --threads 2 > " + (dir / "threaded.log").string() + " 2>&1";
  ASSERT_EQ(std::system(threaded.c_str()), 0) << testing::read_text(dir / "threaded.log");
  // OpenMPI keeps allocations alive past MPI_Finalize (some in plug-ins it has already
  // unloaded, so no suppression can name them); the ranks' leak check is off in sanitizer
  // builds, the threaded run above keeps it.
  const std::string mpi =
      "ASAN_OPTIONS=detect_leaks=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "mpirun -np 2 --oversubscribe " +
      std::string(TIDAL_BINARY) + args + (dir / "mpi").string() + " --threads 1 > " +
      (dir / "mpi.log").string() + " 2>&1";
  ASSERT_EQ(std::system(mpi.c_str()), 0) << testing::read_text(dir / "mpi.log");
  EXPECT_NE(testing::read_text(dir / "mpi.log").find("on 2 rank(s)"), std::string::npos)
      << testing::read_text(dir / "mpi.log");
  EXPECT_EQ(testing::read_text(dir / "threaded" / "plan.json"),
            testing::read_text(dir / "mpi" / "plan.json"));
  EXPECT_EQ(testing::read_text(dir / "threaded" / "plan.csv"),
            testing::read_text(dir / "mpi" / "plan.csv"));
}

}  // namespace
}  // namespace tidal::plan
