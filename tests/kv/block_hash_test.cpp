#include "engine/kv/block_hash.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "traces/request.h"

namespace tidal::kv {
namespace {

Request mooncake_request(int64_t id, int64_t prompt_tokens, std::vector<uint64_t> hash_ids) {
  Request r;
  r.id = id;
  r.prompt_tokens = prompt_tokens;
  r.output_tokens = 10;
  r.prefix_blocks = std::move(hash_ids);
  r.prefix_block_tokens = 512;
  return r;
}

int64_t common_prefix(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return static_cast<int64_t>(n);
}

TEST(BlockHash, MooncakeMappingIsDeterministicAndCoversFullBlocks) {
  const Request r = mooncake_request(3, 1300, {11, 12, 13});
  const std::vector<uint64_t> first = engine_block_hashes(r, 16);
  const std::vector<uint64_t> second = engine_block_hashes(r, 16);
  EXPECT_EQ(first, second);
  EXPECT_EQ(first.size(), 1300u / 16u);  // 81 full blocks
  // A copy with another id maps identically: the prompt is fully covered by trace hashes.
  Request other = r;
  other.id = 99;
  EXPECT_EQ(engine_block_hashes(other, 16), first);
}

TEST(BlockHash, MooncakeMappingPreservesPrefixes) {
  // Share the first two 512-token blocks, differ in the third.
  const Request a = mooncake_request(1, 2048, {5, 6, 7, 8});
  const Request b = mooncake_request(2, 2048, {5, 6, 9, 8});
  const auto ha = engine_block_hashes(a, 16);
  const auto hb = engine_block_hashes(b, 16);
  EXPECT_EQ(common_prefix(ha, hb), 2 * 512 / 16);
  // Chaining: the equal fourth source block does not make later blocks equal.
  for (size_t i = 64; i < ha.size(); ++i) EXPECT_NE(ha[i], hb[i]);
  // Sharing the first source block only.
  const Request c = mooncake_request(3, 2048, {5, 1, 2, 3});
  EXPECT_EQ(common_prefix(ha, engine_block_hashes(c, 16)), 512 / 16);
  for (const uint64_t h : ha) EXPECT_FALSE(is_private_hash(h));  // trace-covered: shared
  // Sub-blocks of one source block are all distinct.
  for (size_t i = 1; i < 32; ++i) EXPECT_NE(ha[i], ha[i - 1]);
}

TEST(BlockHash, SourceBlocksNotAMultipleOfTheEngineBlock) {
  // 24-token source blocks: sharing m of them shares floor(24 m / 16) engine blocks.
  auto make = [](int64_t id, std::vector<uint64_t> ids) {
    Request r;
    r.id = id;
    r.prompt_tokens = 24 * static_cast<int64_t>(ids.size());
    r.prefix_blocks = std::move(ids);
    r.prefix_block_tokens = 24;
    return r;
  };
  const auto ha = engine_block_hashes(make(1, {1, 2, 3, 4, 5}), 16);
  for (int64_t m = 0; m <= 4; ++m) {
    std::vector<uint64_t> ids{1, 2, 3, 4, 5};
    ids[static_cast<size_t>(m)] = 100;  // first difference at source block m
    EXPECT_EQ(common_prefix(ha, engine_block_hashes(make(2, ids), 16)), 24 * m / 16) << m;
  }
}

TEST(BlockHash, TokenLevelSourceSharesFloorOfCommonPrefix) {
  // Source blocks of one token (token ids as hashes): a common prefix of c tokens shares
  // exactly floor(c / block_size) engine blocks.
  for (int64_t common = 0; common <= 70; ++common) {
    Request a;
    a.id = 1;
    a.prompt_tokens = 80;
    a.prefix_block_tokens = 1;
    for (int64_t t = 0; t < 80; ++t) a.prefix_blocks.push_back(1000 + static_cast<uint64_t>(t));
    Request b = a;
    b.id = 2;
    b.prefix_blocks[static_cast<size_t>(common)] = 7;
    EXPECT_EQ(common_prefix(engine_block_hashes(a, 16), engine_block_hashes(b, 16)), common / 16)
        << common;
  }
}

TEST(BlockHash, RequestsWithoutTraceHashesNeverShare) {
  Request a;
  a.id = 1;
  a.prompt_tokens = 160;
  Request b = a;
  b.id = 2;
  const auto ha = engine_block_hashes(a, 16);
  const auto hb = engine_block_hashes(b, 16);
  ASSERT_EQ(ha.size(), 10u);
  EXPECT_EQ(common_prefix(ha, hb), 0);
  EXPECT_EQ(engine_block_hashes(a, 16), ha);     // deterministic from the id
  EXPECT_NE(engine_block_hashes(a, 16, 1), ha);  // the salt separates namespaces
}

TEST(BlockHash, PartialCoverageEndsInPrivateBlocks) {
  // Trace hashes cover 512 of 1024 prompt tokens: 32 shared blocks, then private ones.
  const Request a = mooncake_request(1, 1024, {42});
  const Request b = mooncake_request(2, 1024, {42});
  const auto ha = engine_block_hashes(a, 16);
  const auto hb = engine_block_hashes(b, 16);
  ASSERT_EQ(ha.size(), 64u);
  EXPECT_EQ(common_prefix(ha, hb), 32);
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(is_private_hash(ha[i]), i >= 32) << i;
}

TEST(BlockHash, PrivateExtensionIsChainedAndDeterministic) {
  const Request a = mooncake_request(1, 100, {42});
  std::vector<uint64_t> h1 = engine_block_hashes(a, 16);
  ASSERT_EQ(h1.size(), 6u);
  std::vector<uint64_t> h2 = h1;
  extend_private_block_hashes(a.id, 0, 10, h1);
  extend_private_block_hashes(a.id, 0, 8, h2);
  extend_private_block_hashes(a.id, 0, 10, h2);
  EXPECT_EQ(h1, h2);  // extending in steps equals extending at once
  ASSERT_EQ(h1.size(), 10u);
  extend_private_block_hashes(a.id, 0, 4, h1);  // never shrinks
  EXPECT_EQ(h1.size(), 10u);
}

// The real Mooncake conversation trace: for the first 2,000 requests, each compared with the 50
// before it, the engine hashes agree on exactly min(32 m, full blocks of either prompt) leading
// blocks, where m is the number of equal leading hash_ids.
TEST(BlockHash, MooncakeTracePrefixesSurviveTheMapping) {
  std::ifstream in(std::string(TIDAL_SHARED_DIR) + "/traces/mooncake/conversation_trace.jsonl");
  ASSERT_TRUE(in) << "missing " << TIDAL_SHARED_DIR << "/traces/mooncake/conversation_trace.jsonl";
  std::vector<Request> requests;
  std::vector<std::vector<uint64_t>> hashes;
  std::string line;
  while (requests.size() < 2000 && std::getline(in, line)) {
    const auto row = nlohmann::json::parse(line);
    Request r = mooncake_request(static_cast<int64_t>(requests.size()),
                                 row.at("input_length").get<int64_t>(),
                                 row.at("hash_ids").get<std::vector<uint64_t>>());
    hashes.push_back(engine_block_hashes(r, 16));
    EXPECT_EQ(hashes.back(), engine_block_hashes(r, 16));
    EXPECT_EQ(static_cast<int64_t>(hashes.back().size()), r.prompt_tokens / 16);
    requests.push_back(std::move(r));
  }
  ASSERT_EQ(requests.size(), 2000u);
  int64_t num_sharing_pairs = 0;
  for (size_t j = 0; j < requests.size(); ++j) {
    for (size_t i = j > 50 ? j - 50 : 0; i < j; ++i) {
      const int64_t m = common_prefix(requests[i].prefix_blocks, requests[j].prefix_blocks);
      const int64_t expected =
          std::min({32 * m, requests[i].prompt_tokens / 16, requests[j].prompt_tokens / 16});
      ASSERT_EQ(common_prefix(hashes[i], hashes[j]), expected) << i << " vs " << j;
      num_sharing_pairs += expected > 0 ? 1 : 0;
    }
  }
  EXPECT_GT(num_sharing_pairs, 1000);
}

TEST(BlockHash, MissingSourceBlockSizeIsAnInputError) {
  Request r;
  r.id = 17;
  r.prompt_tokens = 64;
  r.prefix_blocks = {1, 2};
  r.prefix_block_tokens = 0;
  try {
    engine_block_hashes(r, 16);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "request 17: prefix_block_tokens: must be positive when prefix_blocks is given "
                 "(got 0)");
  }
}

}  // namespace
}  // namespace tidal::kv
