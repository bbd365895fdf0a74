#include "sim/egress_summary.h"

namespace tidal::sim {

namespace {

using ojson = nlohmann::ordered_json;

ojson flow_json(const EgressFlow& flow) {
  return ojson{{"bytes", flow.bytes}, {"dollars", flow.dollars}};
}

}  // namespace

nlohmann::ordered_json egress_summary_json(const Scenario& scenario, const EgressReport& egress) {
  ojson pools = ojson::array();
  for (size_t p = 0; p < egress.by_pool.size(); ++p) {
    const EgressPoolTotals& pool = egress.by_pool[p];
    pools.push_back(ojson{{"pool", scenario.pools[p].name},
                          {"dollars", pool.dollars()},
                          {"request", flow_json(pool.request)},
                          {"response", flow_json(pool.response)},
                          {"kv", flow_json(pool.kv)}});
  }
  ojson links = ojson::array();
  if (scenario.network) {
    for (size_t l = 0; l < egress.by_link.size(); ++l) {
      const fleet::LinkSpec& link = scenario.network->links[l];
      links.push_back(ojson{{"from", link.from},
                            {"to", link.to},
                            {"egress_per_gb", link.egress_per_gb},
                            {"bytes", egress.by_link[l].bytes},
                            {"dollars", egress.by_link[l].dollars}});
    }
  }
  ojson kv_links = ojson::array();
  for (size_t l = 0; l < egress.by_kv_link.size(); ++l) {
    const fleet::KvLinkSpec& link = scenario.kv_links[l];
    kv_links.push_back(ojson{{"from", link.from},
                             {"to", link.to},
                             {"egress_per_gb", link.egress_per_gb},
                             {"bytes", egress.by_kv_link[l].bytes},
                             {"dollars", egress.by_kv_link[l].dollars}});
  }
  const EgressPoolTotals total = egress.total();
  return ojson{{"dollars", total.dollars()},
               {"request", flow_json(total.request)},
               {"response", flow_json(total.response)},
               {"kv", flow_json(total.kv)},
               {"links", links},
               {"kv_links", kv_links},
               {"pools", pools}};
}

}  // namespace tidal::sim
