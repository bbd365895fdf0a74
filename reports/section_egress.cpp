// Egress: what the run's traffic over priced links cost (summary.json `costs.egress`,
// docs/fleet.md "Egress"), by flow, by link and by pool.
#include <fmt/format.h>

#include "reports/cells.h"
#include "reports/format.h"
#include "reports/sections.h"

namespace tidal::reports {
namespace {

Cell gigabytes_cell(double bytes) {
  return number_cell(bytes / 1e9, format_significant(bytes / 1e9));
}

std::optional<double> share_of(double part, double whole) {
  if (whole > 0.0) return part / whole;
  return std::nullopt;
}

}  // namespace

std::optional<Section> egress_section(const RunSection& r) {
  if (!r.run.summary.egress) return std::nullopt;
  const EgressFigures& f = *r.run.summary.egress;
  Section section{"egress" + r.id_suffix, "Egress" + r.title_suffix, {}};
  section.blocks.push_back(
      KeyFigures{{{"egress", dollars_cell(f.dollars)},
                  {"share of cost", percent_cell(share_of(f.dollars, r.run.summary.dollars))},
                  {"requests", dollars_cell(f.request.dollars)},
                  {"answers", dollars_cell(f.response.dollars)},
                  {"KV transfers", dollars_cell(f.kv.dollars)}}});
  section.blocks.push_back(Paragraph{
      "Bytes that crossed a link with an egress price, at that price, either way. A request "
      "crosses the links of the shortest path from its client region to its replica's region "
      "each time the router sends it; its answer crosses them back as it streams; a "
      "disaggregated request's KV crosses its kv_transfer link. The run's dollars include "
      "these."});
  Table links{"egress-links" + r.id_suffix,
              "By link",
              {"from", "to", "kind", "$ per GB", "GB", "dollars"},
              {}};
  for (const EgressLinkFigures& link : f.links) {
    links.rows.push_back({text_cell(link.from), text_cell(link.to),
                          text_cell(link.kv ? "kv_transfer" : "network"),
                          number_cell(link.egress_per_gb, format_significant(link.egress_per_gb)),
                          gigabytes_cell(link.carried.bytes), dollars_cell(link.carried.dollars)});
  }
  section.blocks.push_back(std::move(links));
  Table pools{"egress-pools" + r.id_suffix,
              "By pool",
              {"pool", "request GB", "answer GB", "KV GB", "dollars"},
              {}};
  for (const EgressPoolFigures& pool : f.pools) {
    pools.rows.push_back({text_cell(pool.pool), gigabytes_cell(pool.request.bytes),
                          gigabytes_cell(pool.response.bytes), gigabytes_cell(pool.kv.bytes),
                          dollars_cell(pool.dollars)});
  }
  section.blocks.push_back(std::move(pools));
  return section;
}

}  // namespace tidal::reports
