// Links that carry KV caches from disaggregated prefill replicas to decode replicas
// (docs/fleet.md, "Disaggregated prefill and decode"): what a scenario's `kv_transfer.links`
// says, with each link kind's default bandwidth and latency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tidal::fleet {

// What a pool's replicas do with a request: all of it, only its prompt and first token, or
// the rest after its KV arrived.
enum class PoolRole : uint8_t { both, prefill, decode };
std::string_view pool_role_name(PoolRole role);
// "both", "prefill" or "decode"; empty for any other text.
std::optional<PoolRole> find_pool_role(std::string_view name);

// The physical path between two pools' GPUs.
enum class LinkKind : uint8_t {
  nvlink,      // inside one node (or an NVL72 rack)
  infiniband,  // RDMA between nodes
  roce,        // RDMA over converged Ethernet
  ethernet,    // TCP between nodes
};
std::string_view link_kind_name(LinkKind kind);
std::optional<LinkKind> find_link_kind(std::string_view name);

// Per-GPU one-way bandwidth and latency a kind has unless the link gives its own.
struct LinkKindDefaults {
  double gb_per_s_per_gpu = 0.0;  // GB/s (1e9 bytes) each GPU can send or receive
  double latency_ms = 0.0;        // fixed cost of one transfer (setup, first byte)
};
LinkKindDefaults link_kind_defaults(LinkKind kind);

// Which side of disaggregated serving streams a request's first token to the client.
enum class FirstTokenFrom : uint8_t { decode, prefill };

struct KvLinkSpec {
  std::string from;        // a prefill pool's name
  std::string to;          // a decode pool's name
  int32_t from_pool = -1;  // resolved pool indices
  int32_t to_pool = -1;
  LinkKind kind = LinkKind::infiniband;
  double gb_per_s_per_gpu = 0.0;
  double latency_ms = 0.0;
  // Whole-link cap shared by every transfer on it (a spine or a shared NIC), or none: only the
  // replicas' own GPUs limit it.
  std::optional<double> gb_per_s;
  // Dollars per GB (1e9 bytes) of KV it carries (a transfer between regions or clouds).
  double egress_per_gb = 0.0;
};

}  // namespace tidal::fleet
