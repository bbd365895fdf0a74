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

// Builds the report and writes the three files (creating the folder). InputError when an input
// cannot be read or an output cannot be written.
ReportPaths write_report(const std::vector<std::string>& folders, const std::string& html_path);

}  // namespace tidal::reports
