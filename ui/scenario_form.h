// The scenario editor panel: general keys, workloads, fleet pools, router and output as
// forms over the ScenarioDocument, with the parser's verdict in a banner and beside the field.
#pragma once

#include <string>
#include <vector>

#include "ui/dash_model.h"
#include "ui/form_fields.h"

namespace tidal::ui {

struct ScenarioFormState {
  FormState fields;
  std::string save_path;   // the "save as" field
  std::string save_label;  // the document the field was filled for (a new one refills it)
};

void draw_scenario_form(DashModel& model, ScenarioFormState& state);

// The fixed choices of a scenario field by its JSON path: catalog GPUs and models, dtypes,
// scheduler policies, routers, step-time model kinds, generator kinds, trace formats.
std::vector<std::string> scenario_choices(const std::string& json_path);

}  // namespace tidal::ui
