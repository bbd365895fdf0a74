// Synthesized prompt tokens: deterministic, in the vocabulary, shared exactly where the trace
// says prompts share blocks.
#include <algorithm>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "engine/prompt_tokens.h"

namespace tidal::engine {
namespace {

Request request(int64_t id, int64_t prompt_tokens, std::vector<uint64_t> blocks, int32_t block) {
  Request r;
  r.id = id;
  r.prompt_tokens = prompt_tokens;
  r.output_tokens = 1;
  r.prefix_blocks = std::move(blocks);
  r.prefix_block_tokens = block;
  return r;
}

TEST(PromptTokens, DeterministicAndInsideTheVocabulary) {
  const Request r = request(3, 500, {}, 0);
  const std::vector<int32_t> a = synthesize_prompt(r, 97, 1);
  EXPECT_EQ(a, synthesize_prompt(r, 97, 1));
  ASSERT_EQ(a.size(), 500u);
  EXPECT_TRUE(std::all_of(a.begin(), a.end(), [](int32_t t) { return t >= 0 && t < 97; }));
  EXPECT_NE(a, synthesize_prompt(r, 97, 2)) << "the seed matters";
  EXPECT_NE(a, synthesize_prompt(request(4, 500, {}, 0), 97, 1)) << "the id matters";
  // Every token id shows up in a long prompt: no degenerate mapping.
  std::vector<int> seen(97, 0);
  for (int32_t t : a) seen[static_cast<size_t>(t)] = 1;
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 97);
}

TEST(PromptTokens, SharedLeadingBlocksGiveSharedTokens) {
  const Request a = request(0, 100, {1, 2, 3, 4}, 32);
  const Request b = request(1, 90, {1, 2, 9}, 32);
  const std::vector<int32_t> ta = synthesize_prompt(a, 1000, 0);
  const std::vector<int32_t> tb = synthesize_prompt(b, 1000, 0);
  EXPECT_TRUE(std::equal(ta.begin(), ta.begin() + 64, tb.begin())) << "blocks 1, 2 shared";
  EXPECT_FALSE(std::equal(ta.begin() + 64, ta.begin() + 90, tb.begin() + 64));
  // Equal hashes in a different chain position are different content.
  const Request c = request(2, 64, {2, 1}, 32);
  EXPECT_FALSE(std::equal(ta.begin(), ta.begin() + 32, synthesize_prompt(c, 1000, 0).begin() + 32));
  // Beyond the hashed blocks, tokens are private to the request.
  const Request d = request(5, 120, {1, 2}, 32);
  const Request e = request(6, 120, {1, 2}, 32);
  const std::vector<int32_t> td = synthesize_prompt(d, 1000, 0);
  const std::vector<int32_t> te = synthesize_prompt(e, 1000, 0);
  EXPECT_TRUE(std::equal(td.begin(), td.begin() + 64, te.begin()));
  EXPECT_FALSE(std::equal(td.begin() + 64, td.end(), te.begin() + 64));
}

TEST(PromptTokens, HashesWithoutABlockSizeAreAnInputError) {
  EXPECT_THROW(synthesize_prompt(request(0, 10, {1}, 0), 100, 0), InputError);
}

}  // namespace
}  // namespace tidal::engine
