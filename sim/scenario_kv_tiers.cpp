#include "sim/scenario_kv_tiers.h"

#include <array>
#include <cmath>
#include <limits>
#include <string_view>

#include <fmt/format.h>

namespace tidal::sim {
namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
constexpr double kBytesPerGb = 1e9;  // bandwidths in decimal GB/s, as vendors quote them
// A bandwidth beyond this, or a latency beyond an hour, is a typo, not a storage tier.
constexpr double kMaxGbPerS = 1e6;
constexpr double kMaxLatencyMs = 3.6e6;
constexpr double kMaxCapacityGib = 1e9;

struct KindName {
  std::string_view name;
  kv::TierKind kind;
};
constexpr std::array<KindName, 3> kKinds{
    {{"cpu", kv::TierKind::cpu}, {"disk", kv::TierKind::disk}, {"remote", kv::TierKind::remote}}};

// A bandwidth in GB/s under `key`: required, in (0, kMaxGbPerS].
double required_gb_per_s(JsonObject& obj, std::string_view key) {
  if (!obj.has(key)) obj.fail(key, "missing (required)");
  const double value = obj.positive(key, obj.number(key, 0.0));
  if (!(value <= kMaxGbPerS)) obj.fail(key, fmt::format("must be at most {:g}", kMaxGbPerS));
  return value;
}

KvTierSpec read_tier(const nlohmann::json& value, const std::string& path, const std::string& file,
                     double block_bytes) {
  JsonObject obj(value, path, file);
  const std::string kind_name = obj.required_string("kind");
  const KindName* kind = nullptr;
  for (const KindName& k : kKinds) {
    if (k.name == kind_name) kind = &k;
  }
  if (kind == nullptr) {
    obj.fail("kind", fmt::format("\"{}\" is not a tier kind (cpu, disk, remote)", kind_name));
  }
  KvTierSpec tier;
  tier.config.kind = kind->kind;
  tier.config.block_bytes = block_bytes;
  if (const std::optional<double> gib = obj.optional_number("capacity_gib")) {
    obj.positive("capacity_gib", *gib);
    if (!(*gib <= kMaxCapacityGib)) {
      obj.fail("capacity_gib", fmt::format("must be at most {:g}", kMaxCapacityGib));
    }
    tier.capacity_gib = *gib;
    const double num_blocks = std::floor(*gib * kBytesPerGib / block_bytes);
    if (num_blocks < 1.0) {
      obj.fail("capacity_gib",
               fmt::format("{:g} GiB holds no KV block of {:g} bytes", *gib, block_bytes));
    }
    if (num_blocks > static_cast<double>(std::numeric_limits<int32_t>::max())) {
      obj.fail("capacity_gib", fmt::format("{:g} GiB holds more than {} KV blocks of {:g} bytes",
                                           *gib, std::numeric_limits<int32_t>::max(), block_bytes));
    }
    tier.config.capacity_blocks = static_cast<int64_t>(num_blocks);
  } else if (tier.config.kind != kv::TierKind::remote) {
    obj.fail("capacity_gib",
             fmt::format("missing (required for a {} tier; only a remote tier may be unbounded)",
                         kind_name));
  }
  tier.read_gb_per_s = required_gb_per_s(obj, "read_gb_per_s");
  tier.write_gb_per_s = required_gb_per_s(obj, "write_gb_per_s");
  tier.latency_ms = obj.non_negative("latency_ms", obj.number("latency_ms", 0.0));
  if (!(tier.latency_ms <= kMaxLatencyMs)) {
    obj.fail("latency_ms", fmt::format("must be at most {:g}", kMaxLatencyMs));
  }
  tier.config.read_bytes_per_s = tier.read_gb_per_s * kBytesPerGb;
  tier.config.write_bytes_per_s = tier.write_gb_per_s * kBytesPerGb;
  tier.config.latency_ns = std::llround(tier.latency_ms * 1e6);
  obj.finish({"kind", "capacity_gib", "read_gb_per_s", "write_gb_per_s", "latency_ms"});
  kv::validate(tier.config, path);
  return tier;
}

}  // namespace

void read_pool_kv_tiers(const nlohmann::json* tiers, const JsonObject& pool_obj, PoolSpec& pool) {
  if (tiers == nullptr) return;
  const std::string path = pool_obj.path_of("kv_tiers");
  const std::string& file = pool_obj.file();
  if (!tiers->is_array()) throw_at(file, path, "must be an array of tiers");
  if (!tiers->empty() && !pool.prefix_caching) {
    throw_at(file, path, "needs prefix_caching: the tiers hold blocks by their prefix hashes");
  }
  if (!tiers->empty() && pool.scheduler.policy == "static") {
    throw_at(file, path, "not with scheduler.policy static (a static batch admits no loads)");
  }
  const double block_bytes = static_cast<double>(pool.deployment.block_size) *
                             pool.memory.kv_bytes_per_token_all_stages * pool.deployment.tp;
  for (size_t i = 0; i < tiers->size(); ++i) {
    const std::string tier_path = fmt::format("{}[{}]", path, i);
    KvTierSpec tier = read_tier((*tiers)[i], tier_path, file, block_bytes);
    for (const KvTierSpec& above : pool.kv_tiers) {
      if (above.config.kind == tier.config.kind) {
        throw_at(file, tier_path + ".kind",
                 fmt::format("a second {} tier", kv::tier_kind_name(tier.config.kind)));
      }
      if (above.config.kind == kv::TierKind::remote) {
        throw_at(file, tier_path, "below the remote tier: the remote tier must be the last");
      }
    }
    pool.kv_tiers.push_back(tier);
  }
}

int32_t remote_tier_index(const PoolSpec& pool) {
  for (size_t i = 0; i < pool.kv_tiers.size(); ++i) {
    if (pool.kv_tiers[i].config.kind == kv::TierKind::remote) return static_cast<int32_t>(i);
  }
  return -1;
}

void check_shared_remote_tier(const std::vector<PoolSpec>& pools, const std::string& file) {
  const PoolSpec* first = nullptr;
  size_t first_index = 0;
  for (size_t p = 0; p < pools.size(); ++p) {
    const int32_t t = remote_tier_index(pools[p]);
    if (t < 0) continue;
    if (first == nullptr) {
      first = &pools[p];
      first_index = p;
      continue;
    }
    const std::string path = fmt::format("fleet.pools[{}].kv_tiers[{}]", p, t);
    const KvTierSpec& a = first->kv_tiers[static_cast<size_t>(remote_tier_index(*first))];
    const KvTierSpec& b = pools[p].kv_tiers[static_cast<size_t>(t)];
    const std::string with =
        fmt::format("the remote tier is one store shared with fleet.pools[{}]", first_index);
    if (pools[p].model != first->model ||
        pools[p].deployment.block_size != first->deployment.block_size ||
        b.config.block_bytes != a.config.block_bytes) {
      throw_at(file, path,
               fmt::format("{} (model {}, block_size {}, {:g} bytes per block): this pool's model "
                           "{}, block_size {}, {:g} bytes per block differ",
                           with, first->model, first->deployment.block_size, a.config.block_bytes,
                           pools[p].model, pools[p].deployment.block_size, b.config.block_bytes));
    }
    if (a.capacity_gib != b.capacity_gib || a.read_gb_per_s != b.read_gb_per_s ||
        a.write_gb_per_s != b.write_gb_per_s || a.latency_ms != b.latency_ms) {
      throw_at(file, path,
               with +
                   ": give it the same capacity_gib, read_gb_per_s, write_gb_per_s and "
                   "latency_ms there");
    }
  }
}

std::shared_ptr<kv::KvTier> make_remote_tier(const std::vector<PoolSpec>& pools) {
  for (const PoolSpec& pool : pools) {
    const int32_t t = remote_tier_index(pool);
    if (t >= 0) return std::make_shared<kv::KvTier>(pool.kv_tiers[static_cast<size_t>(t)].config);
  }
  return nullptr;
}

}  // namespace tidal::sim
