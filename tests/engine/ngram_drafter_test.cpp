// Prompt-lookup drafting: the latest earlier occurrence of the longest matching suffix.
#include <vector>

#include <gtest/gtest.h>

#include "engine/ngram_drafter.h"

namespace tidal::engine {
namespace {

TEST(NgramDrafter, ContinuesTheLatestOccurrenceOfTheLongestSuffix) {
  const NgramDrafter drafter(1, 3);
  std::vector<int32_t> out;
  // Suffix [7 8 9] occurs at 1; what followed: 4 5 6 7.
  drafter.propose(std::vector<int32_t>{1, 7, 8, 9, 4, 5, 6, 7, 8, 9}, 3, out);
  EXPECT_EQ(out, (std::vector<int32_t>{4, 5, 6}));
  // Only the 1-gram [5] recurs; its latest earlier occurrence (index 3) is followed by 2, 5.
  drafter.propose(std::vector<int32_t>{5, 1, 1, 5, 2, 5}, 4, out);
  EXPECT_EQ(out, (std::vector<int32_t>{2, 5}));
}

TEST(NgramDrafter, ProposesNothingWithoutARecurringSuffix) {
  const NgramDrafter drafter(2, 3);
  std::vector<int32_t> out = {42};
  drafter.propose(std::vector<int32_t>{1, 2, 3, 4, 5}, 3, out);
  EXPECT_TRUE(out.empty());
  drafter.propose(std::vector<int32_t>{1}, 3, out);
  EXPECT_TRUE(out.empty());
  drafter.propose(std::vector<int32_t>{1, 2, 1, 2}, 0, out);
  EXPECT_TRUE(out.empty()) << "k = 0";
}

TEST(NgramDrafter, ARepeatingLoopIsPredictedExactly) {
  const NgramDrafter drafter(1, 3);
  std::vector<int32_t> out;
  drafter.propose(std::vector<int32_t>{3, 4, 5, 3, 4, 5, 3, 4}, 5, out);
  EXPECT_EQ(out, (std::vector<int32_t>{5, 3, 4}));
}

}  // namespace
}  // namespace tidal::engine
