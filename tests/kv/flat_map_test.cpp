#include "engine/kv/flat_map.h"

#include <cstdint>
#include <random>
#include <unordered_map>

#include <gtest/gtest.h>

namespace tidal::kv {
namespace {

TEST(FlatMap, InsertFindEraseBasics) {
  FlatMap map(4);
  EXPECT_EQ(map.find(7), FlatMap::kAbsent);
  map.insert(7, 70);
  map.insert(0, 5);  // key 0 is an ordinary key
  EXPECT_EQ(map.find(7), 70);
  EXPECT_EQ(map.find(0), 5);
  map.insert(7, 71);  // overwrite
  EXPECT_EQ(map.find(7), 71);
  EXPECT_EQ(map.size(), 2);
  EXPECT_TRUE(map.erase(7));
  EXPECT_FALSE(map.erase(7));
  EXPECT_EQ(map.find(7), FlatMap::kAbsent);
  EXPECT_EQ(map.size(), 1);
}

// 10^5 seeded random operations on a small key range (many collisions, long probe runs, many
// backward shifts) agree with std::unordered_map at every step.
TEST(FlatMap, MatchesReferenceUnderRandomOperations) {
  std::mt19937_64 rng(12345);
  FlatMap map(8);
  std::unordered_map<uint64_t, int32_t> reference;
  for (int op = 0; op < 100000; ++op) {
    const uint64_t key = rng() % 512;
    switch (rng() % 3) {
      case 0: {
        const auto value = static_cast<int32_t>(rng() % 1000);
        map.insert(key, value);
        reference[key] = value;
        break;
      }
      case 1:
        EXPECT_EQ(map.erase(key), reference.erase(key) == 1);
        break;
      default: {
        const auto it = reference.find(key);
        EXPECT_EQ(map.find(key), it == reference.end() ? FlatMap::kAbsent : it->second);
      }
    }
    ASSERT_EQ(map.size(), static_cast<int64_t>(reference.size()));
  }
  for (uint64_t key = 0; key < 512; ++key) {
    const auto it = reference.find(key);
    EXPECT_EQ(map.find(key), it == reference.end() ? FlatMap::kAbsent : it->second);
  }
}

}  // namespace
}  // namespace tidal::kv
