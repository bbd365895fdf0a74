#include "reports/egress_figures.h"

#include "reports/json_fields.h"

namespace tidal::reports {

namespace {

EgressFlowFigures read_flow(const JsonView& v, const char* key) {
  const JsonView flow = v.at(key);
  return EgressFlowFigures{flow.number("bytes"), flow.number("dollars")};
}

std::vector<EgressLinkFigures> read_links(const JsonView& v, const char* key, bool kv) {
  return read_each(v, key, [kv](const JsonView& l) {
    EgressLinkFigures link;
    link.from = l.string("from");
    link.to = l.string("to");
    link.kv = kv;
    link.egress_per_gb = l.number("egress_per_gb");
    link.carried = EgressFlowFigures{l.number("bytes"), l.number("dollars")};
    return link;
  });
}

}  // namespace

EgressFigures read_egress_figures(const JsonView& v) {
  EgressFigures f;
  f.dollars = v.number("dollars");
  f.request = read_flow(v, "request");
  f.response = read_flow(v, "response");
  f.kv = read_flow(v, "kv");
  f.links = read_links(v, "links", false);
  for (EgressLinkFigures& link : read_links(v, "kv_links", true)) f.links.push_back(link);
  f.pools = read_each(v, "pools", [](const JsonView& p) {
    EgressPoolFigures pool;
    pool.pool = p.string("pool");
    pool.dollars = p.number("dollars");
    pool.request = read_flow(p, "request");
    pool.response = read_flow(p, "response");
    pool.kv = read_flow(p, "kv");
    return pool;
  });
  return f;
}

}  // namespace tidal::reports
