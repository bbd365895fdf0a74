// Command-line options of the benches: "--key value" pairs, or positional numbers. `--help` prints
// the usage and exits 0; an option without its value or a key not in `known_keys` prints the usage
// and exits 2, so a mistyped option never starts an hours-long run on the defaults.
#pragma once

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
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

// The number an option's value spells, at least `minimum`: anything else (a word, "8x", "1e3" for
// a whole number, a value below the minimum) prints the usage and exits 2, so a mistyped value
// never aborts the bench nor runs it on something it did not ask for.
template <typename Number>
Number option_number(const char* program, const std::string& key, const std::string& value,
                     Number minimum, std::string_view usage) {
  Number number{};
  const char* end = value.data() + value.size();
  const auto [at, error] = std::from_chars(value.data(), end, number);
  const bool parsed = error == std::errc{} && at == end && at != value.data();
  if (!parsed || number < minimum) {
    std::string least = std::to_string(minimum);
    if constexpr (std::is_floating_point_v<Number>) {
      char text[32];
      std::snprintf(text, sizeof(text), "%g", static_cast<double>(minimum));
      least = text;
    }
    const std::string why = parsed ? "must be at least " + least : "not a number";
    std::fprintf(stderr, "%s: option %s: %s: %s\n%.*s\n", program, key.c_str(), why.c_str(),
                 value.c_str(), static_cast<int>(usage.size()), usage.data());
    std::exit(2);
  }
  return number;
}

// The positional number argv[index] (1-based), or `fallback` when there are fewer arguments.
// `--help` prints the usage and exits 0; anything but a whole number (a mistyped option, "1e3x")
// prints the usage and exits 2, so it never runs as 0.
template <typename Number>
Number positional_number(int argc, char** argv, int index, Number fallback,
                         std::string_view usage) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("%.*s\n", static_cast<int>(usage.size()), usage.data());
      std::exit(0);
    }
  }
  if (index >= argc) return fallback;
  const char* text = argv[index];
  const char* end = text + std::strlen(text);
  Number value{};
  const auto [at, error] = std::from_chars(text, end, value);
  if (error != std::errc{} || at != end || at == text) {
    std::fprintf(stderr, "%s: argument %d: not a number: %s\n%.*s\n", argv[0], index, text,
                 static_cast<int>(usage.size()), usage.data());
    std::exit(2);
  }
  return value;
}

}  // namespace tidal::bench
