// Seeded mutations of the example scenarios (issue 19): loading never crashes and ends either
// in a scenario whose values lie within their documented bounds, and whose echo loads again
// (checked for every 8th), or in an InputError (10^5 inputs; about a minute of one core).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "base/limits.h"
#include "sim/fleet/spec_reading.h"
#include "sim/scenario.h"

namespace tidal::sim {
namespace {

constexpr int64_t kNumInputs = 100'000;

// Hostile values a mutation puts in place of any value of a seed scenario.
const std::vector<nlohmann::json>& hostile_values() {
  static const std::vector<nlohmann::json> values{0,
                                                  -1,
                                                  1,
                                                  3000,
                                                  1e300,
                                                  -1e300,
                                                  1e-300,
                                                  1e-9,
                                                  1e9,
                                                  4e9,
                                                  1e11,
                                                  0.5,
                                                  "",
                                                  "x",
                                                  "a/b",
                                                  nullptr,
                                                  true,
                                                  nlohmann::json::array(),
                                                  nlohmann::json::object(),
                                                  INT64_MAX,
                                                  UINT64_MAX,
                                                  "round_robin",
                                                  "prefix_aware",
                                                  "spot"};
  return values;
}

// Seeds: the examples that load as scenarios and read no other file (traces, profiles, tables).
std::vector<std::string> seed_texts() {
  std::vector<std::string> seeds;
  const std::filesystem::path root = std::filesystem::path(TIDAL_SOURCE_DIR) / "examples";
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() == ".json") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const std::filesystem::path& path : paths) {
    const std::string text = read_scenario_file_text(path.string());
    if (text.find("\"path\"") != std::string::npos ||
        text.find("\"profile\"") != std::string::npos ||
        text.find("\"dir\"") != std::string::npos || text.find(".json\"") != std::string::npos) {
      continue;
    }
    try {
      load_scenario_text(text, "seed.json", "");
      seeds.push_back(text);
    } catch (const InputError&) {
      // not a scenario (a validation spec, a plan's GPU list)
    }
  }
  return seeds;
}

// Every value (with its parent), for picking one at random.
void collect(nlohmann::json& node, std::vector<nlohmann::json*>& out) {
  out.push_back(&node);
  if (node.is_object() || node.is_array()) {
    for (auto& child : node) collect(child, out);
  }
}

std::string mutate(const std::string& seed, std::mt19937_64& rng) {
  auto pick = [&rng](size_t bound) { return static_cast<size_t>(rng() % bound); };
  if (pick(4) == 0) {  // bytes: syntax errors, truncation, a long digit run
    std::string text = seed;
    const size_t pos = pick(text.size());
    switch (pick(3)) {
      case 0:
        text[pos] = "{}[],:\"0-e.9"[pick(12)];
        break;
      case 1:
        text.resize(pos);
        break;
      default:
        text.insert(pos, std::string(1 + pick(30), '9'));
        break;
    }
    return text;
  }
  nlohmann::json json = nlohmann::json::parse(seed);
  const size_t num_mutations = 1 + pick(3);
  for (size_t m = 0; m < num_mutations; ++m) {
    std::vector<nlohmann::json*> nodes;
    collect(json, nodes);
    nlohmann::json& node = *nodes[pick(nodes.size())];
    if (node.is_object() && !node.empty() && pick(3) == 0) {  // drop a key
      auto it = node.begin();
      std::advance(it, static_cast<std::ptrdiff_t>(pick(node.size())));
      node.erase(it);
    } else if (node.is_object() && pick(3) == 0) {  // add a key
      node["num_replicas"] = hostile_values()[pick(hostile_values().size())];
    } else {
      node = hostile_values()[pick(hostile_values().size())];
    }
  }
  std::string text = json.dump();
  if (pick(10) == 0) {  // a duplicate key, which the parser keeps apart from the tree
    const size_t brace = text.find('{', 1);
    if (brace != std::string::npos) text.insert(brace + 1, "\"name\":\"d\",\"name\":\"e\",");
  }
  return text;
}

// The documented bounds of what the loader accepted (docs/scenario.md, "Limits").
void check_bounds(const Scenario& s) {
  ASSERT_GE(s.timeline_interval_s, fleet::kMinIntervalS);
  ASSERT_LE(s.timeline_interval_s, fleet::kMaxDurationS);
  ASSERT_GE(s.metrics.peak_bin_s, fleet::kMinIntervalS);
  ASSERT_LE(s.metrics.peak_bin_s, fleet::kMaxDurationS);
  if (s.duration_s) {
    ASSERT_TRUE(std::isfinite(*s.duration_s) && *s.duration_s > 0.0);
  }
  ASSERT_LE(s.seed, static_cast<uint64_t>(INT64_MAX));
  for (const WorkloadSpec& w : s.workloads) {
    for (const double scale : {w.time_scale, w.rate_scale, w.length_scale}) {
      ASSERT_TRUE(std::isfinite(scale) && scale > 0.0);
    }
    ASSERT_GE(w.start_s, 0.0);
    ASSERT_LE(w.start_s, base::kMaxArrivalS);
  }
  for (const PoolSpec& p : s.pools) {
    ASSERT_GE(p.num_replicas, 0);
    ASSERT_LE(p.num_replicas, fleet::kMaxReplicas);
    ASSERT_GE(p.deployment.tp, 1);
    ASSERT_GE(p.deployment.block_size, 1);
    ASSERT_GE(p.autoscaler.evaluation_interval_s, fleet::kMinIntervalS);
    ASSERT_LE(p.autoscaler.evaluation_interval_s, fleet::kMaxDurationS);
    ASSERT_LE(p.autoscaler.max_replicas, fleet::kMaxReplicas);
    ASSERT_LE(p.speculative.draft_cost_ratio, 10.0);
  }
}

TEST(ScenarioFuzz, MutatedExamplesLoadOrFailCleanly) {
  const std::vector<std::string> seeds = seed_texts();
  ASSERT_GE(seeds.size(), 10u);
  std::mt19937_64 rng(0x5ce7a210u);
  int64_t num_loaded = 0;
  int64_t num_rejected = 0;
  for (int64_t i = 0; i < kNumInputs; ++i) {
    const std::string text = mutate(seeds[static_cast<size_t>(rng() % seeds.size())], rng);
    try {
      const Scenario s = load_scenario_text(text, "fuzz.json", "");
      check_bounds(s);
      // Every 8th: loading the echo costs as much as the input.
      if (num_loaded % 8 == 0) {
        ASSERT_NO_THROW(
            parse_scenario(nlohmann::json::parse(scenario_to_json(s).dump()), "echo.json", ""))
            << text;
      }
      ++num_loaded;
    } catch (const InputError& error) {
      ASSERT_GT(std::string_view(error.what()).size(), 0u);
      ++num_rejected;
    }
  }
  // Both outcomes occur, so the mutations reach past the first checks.
  EXPECT_GT(num_loaded, kNumInputs / 20);
  EXPECT_GT(num_rejected, kNumInputs / 20);
}

}  // namespace
}  // namespace tidal::sim
