// SIGINT / SIGTERM during `tidal engine run` (docs/run-output.md, "Partial engine runs"): the
// replay ends after the step in flight, the run folder is written marked partial, and a second
// signal ends the process at once. The signal is raised from the replay's progress hook, so what is
// asserted is what happened, not when.
#include "engine/stop_signals.h"

#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engine/run_writer.h"
#include "engine/trace_replay.h"
#include "engine_test_support.h"
#include "tests/scratch_folder.h"

namespace tidal::engine {
namespace {

namespace fs = std::filesystem;
using testing::FakeClock;
using testing::make_request;
using testing::small_config;
using testing::tiny_config;

// Six requests at t = 0 with 3, 6, ..., 18 output tokens: they finish in different steps.
std::vector<Request> staggered_requests() {
  std::vector<Request> requests;
  for (int64_t i = 0; i < 6; ++i) requests.push_back(make_request(i, 8, 3 * (i + 1)));
  return requests;
}

// Replays staggered_requests() and raises `number` once the first request is done.
EngineRun replay_and_raise(Engine& engine, int number, const StopOnSignals& stop) {
  ReplayOptions options;
  options.stop_signal = &stop.stop_signal();
  options.on_progress = [number](int64_t num_done, int64_t) {
    if (num_done == 1) raise(number);
  };
  FakeClock clock;
  return replay(engine, staggered_requests(), options, clock);
}

int64_t count_status(const EngineRun& run, RequestStatus status) {
  int64_t n = 0;
  for (const RequestRecord& r : run.records) n += r.status == status;
  return n;
}

TEST(StopSignals, SigintEndsTheReplayAfterTheStepInFlight) {
  Engine engine(models::random_weights(tiny_config(), 1), small_config());
  const StopOnSignals stop;
  const EngineRun run = replay_and_raise(engine, SIGINT, stop);
  EXPECT_EQ(run.stop_signal, SIGINT);
  EXPECT_EQ(count_status(run, RequestStatus::finished), 1);
  EXPECT_EQ(count_status(run, RequestStatus::pending), 5);
  // The first request needs 3 output tokens: its prefill step and two decode steps, and not one
  // step more ran after the signal.
  EXPECT_EQ(run.steps.size(), 3u);
  EXPECT_EQ(run.end_ns, run.steps.back().end_ns);
  EXPECT_EQ(stop.stop_signal().load(), SIGINT);
  // The handler went back to the default action: a second signal would end the process.
  struct sigaction now {};
  sigaction(SIGINT, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
  sigaction(SIGTERM, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
}

TEST(StopSignals, SigtermWritesARunFolderMarkedPartial) {
  Engine engine(models::random_weights(tiny_config(), 1), small_config());
  const StopOnSignals stop;
  const EngineRun run = replay_and_raise(engine, SIGTERM, stop);
  const ScratchFolder scratch("tidal_stop_signals", "partial");
  const fs::path dir = scratch.path() / "run";
  write_run_folder(dir.string(), nlohmann::ordered_json{{"model", "tiny"}}, engine, run,
                   ReplayOptions{}, RunFolderOptions{});
  std::ifstream in(dir / "summary.json");
  const auto summary = nlohmann::json::parse(in);
  EXPECT_EQ(summary["kind"], "tidal-run");
  EXPECT_EQ(summary["partial"], (nlohmann::json{{"stopped_by", "SIGTERM"},
                                                {"num_requests", 6},
                                                {"num_finished", 1},
                                                {"num_rejected", 0},
                                                {"num_unfinished", 5},
                                                {"num_steps", 3}}));
  EXPECT_EQ(summary["metrics"]["num_finished"], 1);
}

TEST(StopSignals, ACompleteRunIsNotPartial) {
  Engine engine(models::random_weights(tiny_config(), 1), small_config());
  const StopOnSignals stop;
  ReplayOptions options;
  options.stop_signal = &stop.stop_signal();
  FakeClock clock;
  const EngineRun run = replay(engine, staggered_requests(), options, clock);
  EXPECT_EQ(run.stop_signal, 0);
  EXPECT_EQ(count_status(run, RequestStatus::finished), 6);
}

TEST(StopSignalsDeathTest, ASecondSignalEndsTheProcessAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const StopOnSignals stop;
        raise(SIGINT);  // stored: the replay would stop after its step
        raise(SIGINT);  // the default action: the process ends here
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGINT), "");
}

TEST(StopSignals, TheHandlersThatWereThereComeBack) {
  struct sigaction before {};
  sigaction(SIGTERM, nullptr, &before);
  { const StopOnSignals stop; }
  struct sigaction after {};
  sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
  EXPECT_EQ(signal_name(SIGINT), "SIGINT");
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGHUP), "signal " + std::to_string(SIGHUP));
}

}  // namespace
}  // namespace tidal::engine
