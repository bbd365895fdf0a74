// summary.json `costs.egress` (runs whose scenario prices egress; docs/fleet.md, "Egress")
// read into memory, strictly: a missing field is an InputError naming its JSON path.
#pragma once

#include <string>
#include <vector>

namespace tidal::reports {

class JsonView;  // reports/json_fields.h

struct EgressFlowFigures {
  double bytes = 0.0;
  double dollars = 0.0;
};

// A priced path: a network link, or a kv_transfer link between two pools.
struct EgressLinkFigures {
  std::string from, to;
  bool kv = false;  // a kv_transfer link
  double egress_per_gb = 0.0;
  EgressFlowFigures carried;
};

struct EgressPoolFigures {
  std::string pool;
  double dollars = 0.0;
  EgressFlowFigures request, response, kv;
};

struct EgressFigures {
  double dollars = 0.0;
  EgressFlowFigures request, response, kv;
  std::vector<EgressLinkFigures> links;  // network links first, then kv_transfer links
  std::vector<EgressPoolFigures> pools;
};

// summary.json `costs.egress`.
EgressFigures read_egress_figures(const JsonView& egress);

}  // namespace tidal::reports
