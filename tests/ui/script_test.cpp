#include "ui/script.h"

#include <gtest/gtest.h>

#include "base/input_error.h"

namespace tidal::ui {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_script(text, "s.dash");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Script, ParsesEveryCommandWithItsLine) {
  const Script script = parse_script(
      "# what-if\n"
      "load tests/ui/small scenario.json\n"
      "\n"
      "set fleet.pools[0].tp 2\n"
      "run\n"
      "pin\n"
      "set fleet.pools[0].gpu H100-SXM\n"
      "rerun\n"
      "  view compare  \n"
      "theme light\n"
      "wait-frames 3\n"
      "screenshot out/a b.png\n"
      "export-report out/report.html\n"
      "start\n"
      "cancel\n",
      "s.dash");
  ASSERT_EQ(script.commands.size(), 13u);
  EXPECT_EQ(script.commands[0].op, ScriptOp::load);
  EXPECT_EQ(script.commands[0].argument, "tests/ui/small scenario.json");
  EXPECT_EQ(script.commands[0].line, 2);
  EXPECT_EQ(script.commands[1].op, ScriptOp::set);
  EXPECT_EQ(script.commands[1].argument, "fleet.pools[0].tp");
  EXPECT_EQ(script.commands[1].value, "2");
  EXPECT_EQ(script.commands[1].line, 4);
  EXPECT_EQ(script.commands[2].op, ScriptOp::run);
  EXPECT_EQ(script.commands[5].op, ScriptOp::rerun);
  EXPECT_EQ(script.commands[6].argument, "compare");
  EXPECT_EQ(script.commands[7].argument, "light");
  EXPECT_EQ(script.commands[8].num_frames, 3);
  EXPECT_EQ(script.commands[9].argument, "out/a b.png");
  EXPECT_EQ(script.commands[10].op, ScriptOp::export_report);
  EXPECT_EQ(script.commands[10].line, 13);
  EXPECT_EQ(script.commands[11].op, ScriptOp::start);
  EXPECT_EQ(script.commands[12].op, ScriptOp::cancel);
}

TEST(Script, ErrorsNameFileAndLine) {
  EXPECT_EQ(error_of("run\nfly away\n"),
            "s.dash:2: unknown command \"fly\" (known: load, set, run, start, cancel, pin, rerun, "
            "view, theme, screenshot, wait-frames, export-report)");
  EXPECT_EQ(error_of("run now"), "s.dash:1: run takes no argument, got \"now\"");
  EXPECT_EQ(error_of("cancel it"), "s.dash:1: cancel takes no argument, got \"it\"");
  EXPECT_EQ(error_of("\n\nload"), "s.dash:3: load needs a path");
  EXPECT_EQ(error_of("set fleet.pools[0].tp"), "s.dash:1: set needs a JSON path and a value");
  EXPECT_EQ(error_of("view plots"),
            "s.dash:1: unknown view \"plots\" (known: workload, queue, fleet, latency, cdf, kv, "
            "cost, tenants, compare)");
  EXPECT_EQ(error_of("theme blue"), "s.dash:1: theme must be dark or light, got \"blue\"");
  EXPECT_EQ(error_of("wait-frames 0"), "s.dash:1: wait-frames needs a positive integer, got \"0\"");
  EXPECT_EQ(error_of("wait-frames 2x"),
            "s.dash:1: wait-frames needs a positive integer, got \"2x\"");
}

TEST(Script, RuntimeErrorsUseTheSameForm) {
  const Script script = parse_script("\npin\n", "s.dash");
  EXPECT_EQ(script_error(script, script.commands[0], "no run to pin"), "s.dash:2: no run to pin");
}

TEST(Script, MissingFileIsAnInputError) {
  EXPECT_THROW(read_script("/nonexistent/x.dash"), InputError);
}

}  // namespace
}  // namespace tidal::ui
