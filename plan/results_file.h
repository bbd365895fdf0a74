// The resumable results file of a plan: results.jsonl in the output folder, one JSON object
// per line, appended as each candidate finishes (in completion order). Every line carries the
// plan's fingerprint — a hash of the scenario, search space, SLO and mode — so a folder is
// never resumed with different inputs. A last line without its newline is a write the process
// did not finish (killed): it is ignored and cut off before the next append.
#pragma once

#include <cstdio>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "plan/candidate_eval.h"

namespace tidal::plan {

nlohmann::ordered_json result_to_json(const CandidateResult& r, const std::string& fingerprint);
// InputError naming `where` on a missing or mistyped field.
CandidateResult result_from_json(const nlohmann::ordered_json& j, const std::string& where);

// Results already in `path` (missing file: none), by candidate id. InputError on a complete
// line that is not a result, or one of another plan (fingerprint mismatch).
std::map<std::string, CandidateResult> read_results(const std::string& path,
                                                    const std::string& fingerprint);

// Appends lines, flushing each; opened after cutting a trailing partial line.
class ResultsWriter {
 public:
  ResultsWriter(const std::string& path, std::string fingerprint);
  ~ResultsWriter();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  void append(const CandidateResult& result);

 private:
  std::string path_;
  std::string fingerprint_;
  std::FILE* file_ = nullptr;
};

}  // namespace tidal::plan
