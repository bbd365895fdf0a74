// Generator specs from command-line words and spec files.
#include <gtest/gtest.h>

#include "base/input_error.h"
#include "test_util.h"
#include "traces/generators.h"

namespace tidal::traces {
namespace {

TEST(SpecArgs, AllThreeSpellingsAndNesting) {
  const nlohmann::json spec =
      spec_from_args("poisson", {"rate=5", "--duration-s", "600", "--prompt.dist=lognormal",
                                 "--prompt.median", "900", "prompt.sigma=0.5", "--tenant", "team a",
                                 "--output", R"({"dist":"fixed","value":3})"});
  const nlohmann::json expected = {
      {"kind", "poisson"},  {"rate", 5},
      {"duration_s", 600},  {"prompt", {{"dist", "lognormal"}, {"median", 900}, {"sigma", 0.5}}},
      {"tenant", "team a"}, {"output", {{"dist", "fixed"}, {"value", 3}}}};
  EXPECT_EQ(spec, expected);
  EXPECT_EQ(generate(spec, 1).size(), generate(expected, 1).size());
}

TEST(SpecArgs, MalformedWordsAreErrors) {
  auto error_of = [](const std::vector<std::string>& args) -> std::string {
    try {
      spec_from_args("poisson", args);
    } catch (const InputError& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_EQ(error_of({"rate"}),
            "generator argument 'rate': expected key=value, --key value or --key=value");
  EXPECT_EQ(error_of({"--rate"}), "generator argument '--rate' needs a value");
  EXPECT_EQ(error_of({"rate=1", "--rate", "2"}), "generator argument 'rate': given twice");
  EXPECT_EQ(error_of({"prompt=5", "prompt.median=3"}),
            "generator argument 'prompt.median': 'prompt' already holds a value");
  EXPECT_EQ(error_of({"a..b=1"}), "generator argument 'a..b': empty key part");
}

TEST(SpecArgs, SpecFiles) {
  testing::ScratchDir scratch;
  const std::string good = scratch.write("g.json", R"({"kind": "poisson", "rate": 1})");
  EXPECT_EQ(read_spec_file(good)["rate"], 1);
  const std::string bad = scratch.write("b.json", R"({"kind": "poisson", )");
  try {
    read_spec_file(bad);
    FAIL();
  } catch (const InputError& error) {
    EXPECT_EQ(std::string(error.what()).rfind(bad + ": invalid JSON: ", 0), 0u) << error.what();
  }
  EXPECT_THROW(read_spec_file(scratch.file("missing.json")), InputError);
  EXPECT_THROW(read_spec_file(scratch.file("")), InputError);
}

}  // namespace
}  // namespace tidal::traces
