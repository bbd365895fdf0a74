// Command-line options of the benches: "--key value" pairs. `--help` prints the usage and exits 0;
// an option without its value or a key not in `known_keys` prints the usage and exits 2, so a
// mistyped option never starts an hours-long run on the defaults.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tidal::bench {

using OptionPairs = std::vector<std::pair<std::string, std::string>>;  // [key, value] in order

inline OptionPairs option_pairs(int argc, char** argv, const std::vector<std::string>& known_keys,
                                std::string_view usage) {
  OptionPairs pairs;
  for (int i = 1; i < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--help" || key == "-h") {
      std::printf("%.*s\n", static_cast<int>(usage.size()), usage.data());
      std::exit(0);
    }
    bool known = false;
    for (const std::string& k : known_keys) known = known || k == key;
    if (!known || i + 1 >= argc) {
      std::fprintf(
          stderr, "%s: %s\n%.*s\n", argv[0],
          known ? ("option " + key + " needs a value").c_str() : ("unknown option " + key).c_str(),
          static_cast<int>(usage.size()), usage.data());
      std::exit(2);
    }
    pairs.emplace_back(key, argv[i + 1]);
  }
  return pairs;
}

}  // namespace tidal::bench
