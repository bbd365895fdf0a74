#include "ui/json_path.h"

#include <gtest/gtest.h>

#include "base/input_error.h"

namespace tidal::ui {
namespace {

using ojson = nlohmann::ordered_json;

TEST(JsonPath, ParsesKeysAndIndices) {
  const std::vector<PathStep> steps = parse_json_path("fleet.pools[0].scheduler.max_num_seqs");
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_EQ(steps[0].key, "fleet");
  EXPECT_EQ(steps[2].index, 0);
  EXPECT_EQ(steps[4].key, "max_num_seqs");
  EXPECT_EQ(format_json_path(steps), "fleet.pools[0].scheduler.max_num_seqs");
  EXPECT_EQ(format_json_path(parse_json_path("[2].a[10][3]")), "[2].a[10][3]");
}

TEST(JsonPath, MalformedPathsAreInputErrors) {
  for (const char* bad : {"", ".a", "a..b", "a[", "a[x]", "a[-1]", "a[]"}) {
    EXPECT_THROW(parse_json_path(bad), InputError) << bad;
  }
  try {
    parse_json_path("pools[one]");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "json path \"pools[one]\": \"[one]\" is not an array index");
  }
}

TEST(JsonPath, FindSetAndErase) {
  ojson doc = ojson::parse(R"({"fleet": {"pools": [{"tp": 1}]}})");
  ASSERT_NE(find_at(doc, "fleet.pools[0].tp"), nullptr);
  EXPECT_EQ(*find_at(doc, "fleet.pools[0].tp"), 1);
  EXPECT_EQ(find_at(doc, "fleet.pools[1].tp"), nullptr);
  EXPECT_EQ(find_at(doc, "fleet.pools[0].tp.x"), nullptr);

  set_at(doc, "fleet.pools[0].tp", 2);
  set_at(doc, "fleet.pools[0].scheduler.policy", "static");  // creates the object
  set_at(doc, "fleet.pools[1]", ojson{{"tp", 4}});           // appends
  EXPECT_EQ(doc.dump(),
            R"({"fleet":{"pools":[{"tp":2,"scheduler":{"policy":"static"}},{"tp":4}]}})");

  erase_at(doc, "fleet.pools[0].scheduler");
  erase_at(doc, "fleet.pools[1]");
  erase_at(doc, "not.there");
  EXPECT_EQ(doc.dump(), R"({"fleet":{"pools":[{"tp":2}]}})");
}

TEST(JsonPath, SettingThroughTheWrongKindNamesThePath) {
  ojson doc = ojson::parse(R"({"fleet": {"pools": [{"tp": 1}]}})");
  try {
    set_at(doc, "fleet.pools[3].tp", 2);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "json path \"fleet.pools[3].tp\": index 3 is past the end of fleet.pools (1 "
                 "elements)");
  }
  EXPECT_THROW(set_at(doc, "fleet.pools.tp", 2), InputError);
  EXPECT_THROW(set_at(doc, "fleet[0]", 2), InputError);
}

TEST(JsonPath, LooseValuesAreJsonOrElseStrings) {
  EXPECT_EQ(parse_loose_value("2"), ojson(2));
  EXPECT_EQ(parse_loose_value("0.5"), ojson(0.5));
  EXPECT_EQ(parse_loose_value("true"), ojson(true));
  EXPECT_EQ(parse_loose_value("null"), ojson(nullptr));
  EXPECT_EQ(parse_loose_value("[1, 2]"), ojson::parse("[1,2]"));
  EXPECT_EQ(parse_loose_value("\"2\""), ojson("2"));
  EXPECT_EQ(parse_loose_value("H100-SXM"), ojson("H100-SXM"));
}

TEST(JsonPath, ChangesListEveryDifferingLeaf) {
  const ojson a = ojson::parse(R"({"seed": 1, "fleet": {"pools": [{"tp": 1, "x": 1}]}, "r": [1]})");
  const ojson b =
      ojson::parse(R"({"seed": 1, "fleet": {"pools": [{"tp": 2}]}, "r": [1, 2], "n": 3})");
  const std::vector<JsonChange> changes = json_changes(a, b);
  ASSERT_EQ(changes.size(), 4u);
  EXPECT_EQ(changes[0].path, "fleet.pools[0].tp");
  EXPECT_EQ(changes[0].before, "1");
  EXPECT_EQ(changes[0].after, "2");
  EXPECT_EQ(changes[1].path, "fleet.pools[0].x");
  EXPECT_EQ(changes[1].after, "(absent)");
  EXPECT_EQ(changes[2].path, "r");
  EXPECT_EQ(changes[2].after, "[1,2]");
  EXPECT_EQ(changes[3].path, "n");
  EXPECT_EQ(changes[3].before, "(absent)");
  EXPECT_TRUE(json_changes(a, a).empty());
}

}  // namespace
}  // namespace tidal::ui
