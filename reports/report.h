// `tidal report`: folders in, one document out, written as report.html (self-contained),
// report.md and report.json beside it (docs/report.md).
#pragma once

#include <string>
#include <vector>

#include "reports/document.h"

namespace tidal::reports {

// Each folder is a run folder (summary.json), a validation folder (validation.json) or a plan
// folder (plan.json); anything else is an InputError. Runs get their own sections and, when
// there are several, a comparison against the first.
Document build_report(const std::vector<std::string>& folders);

struct ReportPaths {
  std::string html;
  std::string markdown;  // the html path with extension .md
  std::string json;      // ... and .json
};
ReportPaths report_paths(const std::string& html_path);

// Where a report goes without --out: beside the first folder, named after it:
// "out/run" -> "out/run.report.html", several folders -> "out/run.comparison.html".
std::string default_report_path(const std::vector<std::string>& folders);

// InputError when one of the three files would go into a run, validation or plan folder (a
// report never writes over, or beside, the files of a run), or names a folder.
void check_report_outputs(const ReportPaths& paths);

// Builds the report and writes the three files (creating the folder), each atomically. An empty
// `html_path` means default_report_path(folders). InputError when an input cannot be read or an
// output is refused (check_report_outputs) or cannot be written.
ReportPaths write_report(const std::vector<std::string>& folders, const std::string& html_path);

}  // namespace tidal::reports
