#include "base/name.h"

#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tidal::base {
namespace {

TEST(Name, EqualTextsShareOneString) {
  const std::string text = "interactive";
  const Name a(text);
  const Name b(std::string_view("interactive"));
  const Name c("batch");
  EXPECT_EQ(&a.str(), &b.str());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(a, "interactive");
  EXPECT_EQ(a, text);
  EXPECT_EQ(a.size(), 11u);
  EXPECT_STREQ(a.c_str(), "interactive");
}

TEST(Name, TheEmptyNameIsTheDefaultAndClearGoesBackToIt) {
  Name name;
  EXPECT_TRUE(name.empty());
  EXPECT_EQ(name, Name(""));
  EXPECT_EQ(name, std::string());
  name = "tenant-a";
  EXPECT_FALSE(name.empty());
  name.clear();
  EXPECT_TRUE(name.empty());
  EXPECT_EQ(name, Name());
}

TEST(Name, OrdersByTextAsTheStringsItReplaces) {
  // Made in the reverse of their text order, so an order by address would differ.
  const Name z("zeta");
  const Name m("mu");
  const Name a("alpha");
  const std::set<Name> names = {z, m, a, Name()};
  std::vector<std::string> texts(names.begin(), names.end());
  EXPECT_EQ(texts, (std::vector<std::string>{"", "alpha", "mu", "zeta"}));
}

TEST(Name, FormatsPrintsAndRoundTripsThroughJson) {
  const Name name("eu-west");
  EXPECT_EQ(fmt::format("[{}]", name), "[eu-west]");
  std::ostringstream out;
  out << name;
  EXPECT_EQ(out.str(), "eu-west");
  const nlohmann::json j = name;
  EXPECT_EQ(j, "eu-west");
  EXPECT_EQ(j.get<Name>(), name);
  std::unordered_set<Name> set = {name, Name("eu-west"), Name("us-east")};
  EXPECT_EQ(set.size(), 2u);
}

TEST(Name, ThreadsNamingTheSameTextsAgree) {
  constexpr int kNumThreads = 4;
  constexpr int kNumTexts = 500;
  std::vector<std::vector<const std::string*>> seen(kNumThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kNumThreads; ++t) {
    threads.emplace_back([t, &seen] {
      for (int i = 0; i < kNumTexts; ++i) {
        seen[static_cast<size_t>(t)].push_back(&Name("session-" + std::to_string(i)).str());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 1; t < kNumThreads; ++t) EXPECT_EQ(seen[static_cast<size_t>(t)], seen[0]);
  for (int i = 0; i < kNumTexts; ++i) {
    EXPECT_EQ(*seen[0][static_cast<size_t>(i)], "session-" + std::to_string(i));
  }
}

}  // namespace
}  // namespace tidal::base
