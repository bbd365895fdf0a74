#include "sim/fleet/kv_links.h"

#include <array>
#include <utility>

namespace tidal::fleet {
namespace {

constexpr std::array<std::pair<PoolRole, std::string_view>, 3> kRoles{{
    {PoolRole::both, "both"},
    {PoolRole::prefill, "prefill"},
    {PoolRole::decode, "decode"},
}};

constexpr std::array<std::pair<LinkKind, std::string_view>, 4> kKinds{{
    {LinkKind::nvlink, "nvlink"},
    {LinkKind::infiniband, "infiniband"},
    {LinkKind::roce, "roce"},
    {LinkKind::ethernet, "ethernet"},
}};

}  // namespace

std::string_view pool_role_name(PoolRole role) {
  for (const auto& [r, name] : kRoles) {
    if (r == role) return name;
  }
  return "both";
}

std::optional<PoolRole> find_pool_role(std::string_view name) {
  for (const auto& [role, n] : kRoles) {
    if (n == name) return role;
  }
  return std::nullopt;
}

std::string_view link_kind_name(LinkKind kind) {
  for (const auto& [k, name] : kKinds) {
    if (k == kind) return name;
  }
  return "infiniband";
}

std::optional<LinkKind> find_link_kind(std::string_view name) {
  for (const auto& [kind, n] : kKinds) {
    if (n == name) return kind;
  }
  return std::nullopt;
}

LinkKindDefaults link_kind_defaults(LinkKind kind) {
  switch (kind) {
    case LinkKind::nvlink:  // H100/H200 NVLink 4: 900 GB/s both ways per GPU (FACTS.md)
      return {450.0, 0.005};
    case LinkKind::infiniband:  // NDR 400 Gb/s, one ConnectX-7 per GPU (DGX H100 datasheet)
      return {50.0, 0.01};
    case LinkKind::roce:  // 400 GbE per GPU
      return {50.0, 0.02};
    case LinkKind::ethernet:  // 100 GbE per GPU over TCP
      return {12.5, 0.1};
  }
  return {50.0, 0.01};
}

}  // namespace tidal::fleet
