#include "sim/egress_meter.h"

#include <utility>

namespace tidal::sim {

namespace {

constexpr double kBytesPerGb = 1e9;

}  // namespace

EgressPoolTotals EgressReport::total() const {
  EgressPoolTotals sum;
  for (const EgressPoolTotals& pool : by_pool) {
    for (auto [to, from] :
         {std::pair{&sum.request, &pool.request}, std::pair{&sum.response, &pool.response},
          std::pair{&sum.kv, &pool.kv}}) {
      to->bytes += from->bytes;
      to->dollars += from->dollars;
    }
  }
  return sum;
}

EgressMeter::EgressMeter(const Scenario& scenario, const fleet::NetworkGraph* network) {
  report_.by_pool.resize(scenario.pools.size());
  report_.by_kv_link.resize(scenario.kv_links.size());
  for (const fleet::KvLinkSpec& link : scenario.kv_links) {
    kv_link_dollars_per_byte_.push_back(link.egress_per_gb / kBytesPerGb);
  }
  if (network == nullptr) return;
  wire_ = network->spec().wire;
  num_regions_ = network->num_regions();
  for (const fleet::LinkSpec& link : network->spec().links) {
    link_dollars_per_byte_.push_back(link.egress_per_gb / kBytesPerGb);
  }
  report_.by_link.resize(link_dollars_per_byte_.size());
  path_links_.resize(static_cast<size_t>(num_regions_) * static_cast<size_t>(num_regions_));
  for (int32_t from = 0; from < num_regions_; ++from) {
    for (int32_t to = 0; to < num_regions_; ++to) {
      path_links_[static_cast<size_t>(from * num_regions_ + to)] = network->path_links(from, to);
    }
  }
}

double EgressMeter::cross(double bytes, int32_t from, int32_t to) {
  if (from < 0 || to < 0 || bytes <= 0.0) return 0.0;
  double dollars = 0.0;
  for (int32_t link : path_links_[static_cast<size_t>(from * num_regions_ + to)]) {
    EgressFlow& flow = report_.by_link[static_cast<size_t>(link)];
    const double link_dollars = bytes * link_dollars_per_byte_[static_cast<size_t>(link)];
    flow.bytes += bytes;
    flow.dollars += link_dollars;
    dollars += link_dollars;
  }
  return dollars;
}

double EgressMeter::add_request(const Request& request, int32_t pool, int32_t client,
                                int32_t site) {
  if (client < 0) return 0.0;
  const double bytes = request.request_bytes >= 0 ? static_cast<double>(request.request_bytes)
                                                  : static_cast<double>(request.prompt_tokens) *
                                                        wire_.request_bytes_per_token;
  const double dollars = cross(bytes, client, site);
  EgressFlow& flow = report_.by_pool[static_cast<size_t>(pool)].request;
  flow.bytes += bytes;
  flow.dollars += dollars;
  return dollars;
}

double EgressMeter::add_response(const Request& request, int64_t num_done, int64_t num_tokens,
                                 int32_t pool, int32_t site, int32_t client) {
  if (client < 0 || num_tokens <= 0) return 0.0;
  double bytes = 0.0;
  if (request.response_bytes >= 0) {
    // The answer's bytes spread over its output tokens as they stream.
    const auto total = static_cast<double>(request.response_bytes);
    const auto num_output = static_cast<double>(request.output_tokens);
    bytes = total * static_cast<double>(num_done + num_tokens) / num_output -
            total * static_cast<double>(num_done) / num_output;
  } else {
    bytes = static_cast<double>(num_tokens) * wire_.response_bytes_per_token +
            wire_.response_bytes_per_chunk;
  }
  const double dollars = cross(bytes, site, client);
  EgressFlow& flow = report_.by_pool[static_cast<size_t>(pool)].response;
  flow.bytes += bytes;
  flow.dollars += dollars;
  return dollars;
}

double EgressMeter::add_kv(double bytes, int32_t pool, int32_t kv_link) {
  const double dollars = bytes * kv_link_dollars_per_byte_[static_cast<size_t>(kv_link)];
  EgressFlow& link = report_.by_kv_link[static_cast<size_t>(kv_link)];
  link.bytes += bytes;
  link.dollars += dollars;
  EgressFlow& flow = report_.by_pool[static_cast<size_t>(pool)].kv;
  flow.bytes += bytes;
  flow.dollars += dollars;
  return dollars;
}

}  // namespace tidal::sim
