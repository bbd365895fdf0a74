// The `tidal` executable: git-style subcommands over the project's libraries.
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "traces/input_error.h"

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
  try {
    app.parse(argc, argv);
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
