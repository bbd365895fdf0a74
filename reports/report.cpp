#include "reports/report.h"

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "base/input_error.h"
#include "base/output_files.h"
#include "reports/folder_data.h"
#include "reports/folder_sections.h"
#include "reports/render.h"
#include "reports/run_data.h"
#include "reports/same_workload.h"
#include "reports/sections.h"

namespace tidal::reports {
namespace {

// Scenario names, made unique with the folder name, then with the position.
void label_runs(std::vector<RunData>& runs) {
  std::multiset<std::string> names;
  for (const RunData& r : runs) names.insert(r.label);
  for (RunData& r : runs) {
    if (names.count(r.label) > 1) {
      r.label += " (" + std::filesystem::path(r.dir).lexically_normal().filename().string() + ")";
    }
  }
  std::multiset<std::string> labels;
  for (const RunData& r : runs) labels.insert(r.label);
  for (size_t k = 0; k < runs.size(); ++k) {
    if (labels.count(runs[k].label) > 1) runs[k].label += fmt::format(" #{}", k + 1);
  }
}

// The run's sections; its workload section only when `with_workload` (runs that replayed the
// same workload share one).
void add_run_sections(Document& doc, const RunData& run, const std::string& id_suffix,
                      const std::string& title_suffix, bool with_workload) {
  const RunSection r{run, id_suffix, title_suffix};
  doc.sections.push_back(overview_section(r));
  if (with_workload) doc.sections.push_back(workload_section(r));
  doc.sections.push_back(latency_section(r));
  doc.sections.push_back(fleet_section(r));
  doc.sections.push_back(cost_section(r));
  if (auto models = models_section(r)) doc.sections.push_back(std::move(*models));
  if (auto energy = energy_section(r)) doc.sections.push_back(std::move(*energy));
  if (auto egress = egress_section(r)) doc.sections.push_back(std::move(*egress));
  if (auto lora = lora_section(r)) doc.sections.push_back(std::move(*lora));
  if (auto lossy = lossy_section(r)) doc.sections.push_back(std::move(*lossy));
  if (auto hol = hol_section(r)) doc.sections.push_back(std::move(*hol));
}

}  // namespace

Document build_report(const std::vector<std::string>& folders) {
  if (folders.empty()) throw InputError("tidal report: no folder given");
  std::vector<RunData> runs;
  std::vector<ValidationData> validations;
  std::vector<PlanData> plans;
  for (const std::string& dir : folders) {
    if (is_run_folder(dir)) {
      runs.push_back(load_run(dir));
    } else if (is_validation_folder(dir)) {
      validations.push_back(load_validation(dir));
    } else if (is_plan_folder(dir)) {
      plans.push_back(load_plan(dir));
    } else {
      throw InputError(fmt::format(
          "{}: not a run, validation or plan folder (no summary.json, validation.json or "
          "plan.json)",
          dir));
    }
  }
  label_runs(runs);

  Document doc;
  std::string subject;
  for (const RunData& r : runs) subject += (subject.empty() ? "" : " vs ") + r.label;
  for (const PlanData& p : plans) subject += (subject.empty() ? "plan " : ", plan ") + p.scenario;
  if (!validations.empty()) subject += subject.empty() ? "validation" : ", validation";
  doc.title = "tidal report: " + subject;
  std::string inputs;
  for (const std::string& dir : folders) inputs += (inputs.empty() ? "" : ", ") + dir;
  doc.notes.push_back("Inputs: " + inputs);
  doc.notes.push_back(
      "Latencies in ms below one second, else s; costs in US$; $ / 1M tokens = dollars per "
      "million tokens of that kind served.");
  for (const RunData& r : runs) {
    if (r.partial) doc.notes.push_back(fmt::format("{}: a partial run ({})", r.label, *r.partial));
    if (!r.has_requests) {
      doc.notes.push_back(fmt::format(
          "{}: the run wrote no requests.csv (output.requests_csv off): no per-request charts",
          r.label));
    }
    if (!r.has_timeline) {
      doc.notes.push_back(fmt::format(
          "{}: the run wrote no timeline.csv (output.timeline_csv off): no charts over time",
          r.label));
    }
  }

  const bool shared_workload = runs.size() > 1 && same_workload(runs);
  if (runs.size() > 1) doc.sections.push_back(comparison_section(runs));
  if (shared_workload) {
    doc.sections.push_back(workload_section({runs.front(), "", ": every run (the same requests)"}));
    doc.notes.push_back(
        "Every run replayed the same requests (arrivals, lengths, tenants, SLO classes): their "
        "workload is shown once.");
  }
  for (size_t k = 0; k < runs.size(); ++k) {
    if (runs.size() == 1) {
      add_run_sections(doc, runs[k], "", "", true);
    } else {
      add_run_sections(doc, runs[k], fmt::format("-{}", k + 1), ": " + runs[k].label,
                       !shared_workload);
    }
  }
  for (size_t k = 0; k < validations.size(); ++k) {
    doc.sections.push_back(
        fidelity_section(validations[k], validations.size() > 1 ? fmt::format("-{}", k + 1) : ""));
  }
  for (size_t k = 0; k < plans.size(); ++k) {
    doc.sections.push_back(
        plan_section(plans[k], plans.size() > 1 ? fmt::format("-{}", k + 1) : ""));
  }
  return doc;
}

ReportPaths report_paths(const std::string& html_path) {
  std::filesystem::path p(html_path);
  ReportPaths paths;
  paths.html = html_path;
  paths.markdown = std::filesystem::path(p).replace_extension(".md").string();
  paths.json = std::filesystem::path(p).replace_extension(".json").string();
  if (paths.markdown == html_path || paths.json == html_path) {
    throw InputError(
        fmt::format("{}: the HTML report needs an extension other than .md/.json "
                    "(report.md and report.json are written beside it)",
                    html_path));
  }
  return paths;
}

std::string default_report_path(const std::vector<std::string>& folders) {
  if (folders.empty()) throw InputError("tidal report: no folder given");
  std::filesystem::path first = std::filesystem::path(folders.front()).lexically_normal();
  if (!first.has_filename()) first = first.parent_path();  // "out/run/"
  if (first.empty() || first.filename() == "." || first.filename() == "..") {
    first = std::filesystem::weakly_canonical(std::filesystem::absolute(first));
  }
  const char* suffix = folders.size() == 1 ? ".report.html" : ".comparison.html";
  return (first.parent_path() / (first.filename().string() + suffix)).string();
}

void check_report_outputs(const ReportPaths& paths) {
  for (const std::string& path : {paths.html, paths.markdown, paths.json}) {
    const std::filesystem::path p(path);
    std::filesystem::path parent = p.parent_path();
    if (parent.empty()) parent = ".";
    if (is_run_folder(parent.string()) || is_validation_folder(parent.string()) ||
        is_plan_folder(parent.string())) {
      throw InputError(fmt::format(
          "{}: inside the run, validation or plan folder {}; a report never writes into one "
          "(its files belong to the run): write it beside the folder instead",
          path, parent.string()));
    }
    if (std::filesystem::is_directory(p)) {
      throw InputError(fmt::format("{}: is a folder; give the HTML file to write", path));
    }
  }
}

ReportPaths write_report(const std::vector<std::string>& folders, const std::string& html_path) {
  const ReportPaths paths =
      report_paths(html_path.empty() ? default_report_path(folders) : html_path);
  check_report_outputs(paths);
  const Document doc = build_report(folders);
  const std::filesystem::path parent = std::filesystem::path(paths.html).parent_path();
  if (!parent.empty()) base::create_output_folder(parent.string());
  base::write_output_text(paths.html, render_html(doc));
  base::write_output_text(paths.markdown, render_markdown(doc));
  base::write_output_text(paths.json, render_json(doc).dump(1) + "\n");
  return paths;
}

}  // namespace tidal::reports
