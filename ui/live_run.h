// What a run hands over while it goes (sim::ProgressReport), kept for the live plots: the
// timeline intervals closed so far and the requests that ended so far. The views draw it as a
// partial LoadedRun until the run completes and its folder replaces it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/scenario.h"
#include "sim/simulator.h"
#include "sim/timeline.h"
#include "ui/loaded_run.h"

namespace tidal::ui {

// One request that finished or was rejected, as requests.csv would give it; NaN where a
// latency is undefined (rejected, or TPOT of a one-token output).
struct LiveRequest {
  int32_t tenant = 0;     // index into LiveRows::tenant_names
  int32_t slo_class = 0;  // index into LiveRows::class_names
  double arrival_s = 0.0;
  double prompt_tokens = 0.0;
  double output_tokens = 0.0;
  double ttft_s = 0.0, tpot_s = 0.0, e2e_s = 0.0, queue_delay_s = 0.0;
  bool finished = false;
  bool slo_met = false;
};

struct LiveRows {
  std::vector<std::string> tenant_names;   // sorted, distinct, over all of the run's requests
  std::vector<std::string> class_names;    // sorted, distinct
  int64_t num_requests = 0;                // in the run
  std::vector<sim::TimelineRow> timeline;  // [num closed intervals]; dollars 0 (priced after)
  std::vector<LiveRequest> requests;       // [num ended] in the order they ended
};

// Empty rows for a run over `table`: the tenant and class names and the request count.
LiveRows live_rows_for(const sim::RequestTable& table);

// Appends what one report hands over (rows created by live_rows_for on the same table).
void append_report(const sim::Scenario& scenario, const sim::ProgressReport& report,
                   LiveRows& rows);

// Appends the intervals and requests of `from` beyond those `into` holds (both of one run;
// `into` a copy taken earlier, or empty to take everything).
void append_new_rows(const LiveRows& from, LiveRows& into);

// The views' run over the rows so far: the timeline and ended requests in the report code's
// form, the series derived from them, and in the summary only the name and request counts.
std::shared_ptr<const LoadedRun> make_live_run(const LiveRows& rows, std::string dir,
                                               std::string label, std::string scenario_name);

}  // namespace tidal::ui
