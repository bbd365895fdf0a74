// `tidal report RUN_DIR... [--out report.html]`: wiring of reports/ to the command line.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "reports/report.h"

namespace tidal::cli {

void add_report_command(CLI::App& app) {
  struct Args {
    std::vector<std::string> folders;
    std::string out;  // empty: beside the first folder (reports::default_report_path)
  };
  auto args = std::make_shared<Args>();
  CLI::App* report = app.add_subcommand(
      "report",
      "Render run, validation or plan folders as one self-contained HTML report, plus "
      "report.md and report.json beside it (several runs: a side-by-side comparison)");
  report
      ->add_option("folders", args->folders,
                   "run folders (summary.json), validation or plan folders")
      ->required();
  report->add_option("--out,-o", args->out,
                     "HTML file to write (default: beside the first folder, RUN.report.html; "
                     "RUN.comparison.html for several); never inside a run folder");
  report->callback([args] {
    const reports::ReportPaths paths = reports::write_report(args->folders, args->out);
    std::printf("wrote %s, %s, %s\n", paths.html.c_str(), paths.markdown.c_str(),
                paths.json.c_str());
  });
}

}  // namespace tidal::cli
