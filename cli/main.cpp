// The `tidal` executable: git-style subcommands over the project's libraries.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/input_error.h"
#include "cli/commands.h"

namespace {

std::string version_text() {
  return std::string("tidal ") + TIDAL_VERSION + " (commit " + TIDAL_GIT_COMMIT +
         ", CUDA backend " + (TIDAL_HAVE_CUDA ? "on" : "off") + ")";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tidal: simulate, run and cost LLM serving"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  app.footer(
      "`tidal help CMD` is `tidal CMD --help`. Questions and runnable answers: docs/howto.md.");
  tidal::cli::add_trace_command(app);
  tidal::cli::add_report_command(app);
  tidal::cli::add_plan_command(app);
  tidal::cli::add_model_command(app);
  tidal::cli::add_simulate_command(app);
  tidal::cli::add_dash_command(app);
  tidal::cli::add_engine_command(app);
  tidal::cli::add_profile_command(app);
  tidal::cli::add_validate_command(app);
  tidal::cli::add_calibrate_command(app);
  // `tidal help [CMD ...]` is `tidal [CMD ...] --help`.
  std::vector<char*> args(argv, argv + argc);
  std::string help_flag = "--help";
  if (argc >= 2 && std::string(argv[1]) == "help") {
    args.erase(args.begin() + 1);
    args.push_back(help_flag.data());
    if (args.size() > 2) {
      const std::string command = args[1];
      bool known = false;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        known = known || sub->get_name() == command;
      }
      if (!known) {
        std::fprintf(stderr,
                     "tidal: error: help: unknown command \"%s\" (`tidal help` lists them)\n",
                     command.c_str());
        return 1;
      }
    }
  }
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const tidal::InputError& e) {
    std::fprintf(stderr, "tidal: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tidal: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
