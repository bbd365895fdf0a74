// `tidal dash` headless under Xvfb: a scripted what-if loop (load, run, pin, edit, rerun,
// views, theme, screenshots, report) must leave non-blank PNGs and run folders with the
// expected metrics. Skipped when xvfb-run is not installed.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <stb_image.h>
#include <nlohmann/json.hpp>

#include "tests/scratch_folder.h"

namespace {

namespace fs = std::filesystem;
using tidal::ScratchFolder;

const std::string kTidal = TIDAL_EXE;
const std::string kScenario = std::string(TIDAL_SOURCE_DIR) + "/tests/ui/small_scenario.json";

struct Image {
  int width = 0;
  int height = 0;
  double mean = 0.0;      // mean luminance, 0..255
  double variance = 0.0;  // of the luminance over all pixels
};

Image read_png(const fs::path& path) {
  Image image;
  int channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &image.width, &image.height, &channels, 3);
  if (pixels == nullptr) return image;
  const size_t n = static_cast<size_t>(image.width) * image.height;
  double sum = 0.0;
  double sum_sq = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double y = 0.299 * pixels[3 * i] + 0.587 * pixels[3 * i + 1] + 0.114 * pixels[3 * i + 2];
    sum += y;
    sum_sq += y * y;
  }
  stbi_image_free(pixels);
  image.mean = sum / static_cast<double>(n);
  image.variance = sum_sq / static_cast<double>(n) - image.mean * image.mean;
  return image;
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool have_xvfb() {
  return std::system("command -v xvfb-run >/dev/null 2>&1") == 0;
}

// Runs `tidal dash ARGS` under Xvfb with the output in `log`; returns tidal's exit status (-1 when
// it did not run), read from a file the shell writes under xvfb-run: xvfb-run's own status also
// covers removing its temporary directory, which can fail after tidal has exited (status 5).
int run_dash(const std::string& args, const fs::path& log) {
  const fs::path status_file = log.string() + ".status";
  fs::remove(status_file);
  const std::string command = "xvfb-run -a -s \"-screen 0 1600x1000x24\" sh -c '" + kTidal +
                              " dash " + args + " > " + log.string() + " 2>&1; echo $? > " +
                              status_file.string() + "'";
  if (std::system(command.c_str()) == -1) return -1;  // no shell to run it
  int status = -1;
  std::ifstream(status_file) >> status;
  return status;
}

const std::string kScratch = "tidal_dash";

TEST(DashScreenshot, ScriptedWhatIfLoop) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb); skipping";
  const ScratchFolder scratch(kScratch, "what_if");
  const fs::path& dir = scratch.path();
  const fs::path script = dir / "what_if.dash";
  std::ofstream(script) << "# pin a run, change one knob, run again, compare\n"
                        << "load " << kScenario << "\n"
                        << "run\n"
                        << "view latency\n"
                        << "screenshot " << (dir / "latency.png").string() << "\n"
                        << "pin\n"
                        << "set fleet.pools[0].num_replicas 4\n"
                        << "rerun\n"
                        << "screenshot " << (dir / "compare.png").string() << "\n"
                        << "export-report " << (dir / "report" / "report.html").string() << "\n"
                        << "theme light\n"
                        << "view fleet\n";
  const int status =
      run_dash("--size 1600x1000 --frames 4 --out " + (dir / "runs").string() + " --script " +
                   script.string() + " --screenshot " + (dir / "final.png").string(),
               dir / "log.txt");
  ASSERT_EQ(status, 0) << read_text(dir / "log.txt");

  for (const char* name : {"latency.png", "compare.png", "final.png"}) {
    const Image image = read_png(dir / name);
    EXPECT_EQ(image.width, 1600) << name;
    EXPECT_EQ(image.height, 1000) << name;
    EXPECT_GT(image.variance, 100.0) << name << " looks blank";
  }
  EXPECT_LT(read_png(dir / "compare.png").mean, 110.0);  // dark theme
  EXPECT_GT(read_png(dir / "final.png").mean, 170.0);    // light theme

  const nlohmann::json first = read_json(dir / "runs" / "dash-small-1" / "summary.json");
  const nlohmann::json second = read_json(dir / "runs" / "dash-small-2" / "summary.json");
  EXPECT_EQ(first["scenario"]["name"], "dash-small");
  EXPECT_EQ(first["scenario"]["fleet"]["pools"][0]["num_replicas"], 2);
  EXPECT_EQ(second["scenario"]["fleet"]["pools"][0]["num_replicas"], 4);
  const nlohmann::json& m = first["metrics"];
  EXPECT_GT(m["num_requests"].get<int64_t>(), 1000);
  EXPECT_EQ(m["num_requests"], m["num_finished"].get<int64_t>() + m["num_rejected"].get<int64_t>());
  EXPECT_EQ(second["metrics"]["num_requests"], m["num_requests"]);
  EXPECT_GT(m["ttft"]["p99_s"].get<double>(), 0.0);
  EXPECT_TRUE(fs::exists(dir / "runs" / "dash-small-1" / "timeline.csv"));
  EXPECT_TRUE(fs::exists(dir / "runs" / "dash-small-1" / "requests.csv"));
  EXPECT_TRUE(fs::exists(dir / "report" / "report.html"));

  // The same scenario through `tidal simulate` gives the same metrics.
  const std::string simulate = kTidal + " simulate " + kScenario + " --quiet --out " +
                               (dir / "cli").string() + " > /dev/null";
  ASSERT_EQ(std::system(simulate.c_str()), 0);
  EXPECT_EQ(read_json(dir / "cli" / "summary.json")["metrics"], m);
}

// A long run started, shown while it goes, then cancelled: the live plots stay and no run
// folder is written.
TEST(DashScreenshot, LiveRunThenCancel) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb); skipping";
  const ScratchFolder scratch(kScratch, "live");
  const fs::path& dir = scratch.path();
  const fs::path script = dir / "live.dash";
  std::ofstream(script) << "load " << kScenario << "\n"
                        << "set duration_s 36000\n"
                        << "set workloads[0].generator.duration_s 36000\n"
                        << "set workloads[1].generator.duration_s 36000\n"
                        << "start\n"
                        << "view queue\n"
                        << "wait-frames 30\n"
                        << "screenshot " << (dir / "live.png").string() << "\n"
                        << "cancel\n"
                        << "view latency\n";
  const int status =
      run_dash("--size 1600x1000 --frames 4 --out " + (dir / "runs").string() + " --script " +
                   script.string() + " --screenshot " + (dir / "cancelled.png").string(),
               dir / "log.txt");
  ASSERT_EQ(status, 0) << read_text(dir / "log.txt");
  for (const char* name : {"live.png", "cancelled.png"}) {
    const Image image = read_png(dir / name);
    EXPECT_EQ(image.width, 1600) << name;
    EXPECT_GT(image.variance, 100.0) << name << " looks blank";
  }
  EXPECT_FALSE(fs::exists(dir / "runs" / "dash-small-1" / "summary.json"));
}

TEST(DashScreenshot, ScriptErrorsExitNonZeroWithTheLine) {
  if (!have_xvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb); skipping";
  const ScratchFolder scratch(kScratch, "errors");
  const fs::path& dir = scratch.path();
  const fs::path parse_error = dir / "parse.dash";
  std::ofstream(parse_error) << "run\nview sideways\n";
  EXPECT_EQ(
      run_dash("--script " + parse_error.string() + " --screenshot " + (dir / "a.png").string(),
               dir / "parse.txt"),
      1);
  EXPECT_NE(read_text(dir / "parse.txt").find(parse_error.string() + ":2: unknown view"),
            std::string::npos)
      << read_text(dir / "parse.txt");

  const fs::path runtime_error = dir / "runtime.dash";
  std::ofstream(runtime_error) << "# nothing has run yet\n\npin\n";
  EXPECT_EQ(run_dash("--size 800x600 --script " + runtime_error.string() + " --screenshot " +
                         (dir / "b.png").string(),
                     dir / "runtime.txt"),
            1);
  EXPECT_NE(read_text(dir / "runtime.txt").find(runtime_error.string() + ":3: no run to pin"),
            std::string::npos)
      << read_text(dir / "runtime.txt");
  EXPECT_FALSE(fs::exists(dir / "b.png"));
}

}  // namespace
