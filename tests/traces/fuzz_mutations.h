// Seeded byte mutations of valid input text, shared by the fuzz tests of the trace readers and
// of the engine's trace and flag parsing.
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <string_view>

namespace tidal::traces::testing {

// Bytes that matter to the parsers, favoured over random ones.
inline constexpr std::string_view kSpecialBytes = ",\"{}[]:\n\r\t -+.eE0123456789\\u\x00\xff";

// One to four mutations of `text`: bytes overwritten, inserted or deleted, a truncation, a
// duplicated run, a long digit run.
inline std::string mutate(std::string text, std::mt19937_64& rng) {
  auto pick = [&rng](size_t bound) { return static_cast<size_t>(rng() % bound); };
  auto random_byte = [&]() {
    return pick(2) == 0 ? kSpecialBytes[pick(kSpecialBytes.size())] : static_cast<char>(rng());
  };
  const size_t num_mutations = 1 + pick(4);
  for (size_t m = 0; m < num_mutations; ++m) {
    const size_t pos = text.empty() ? 0 : pick(text.size());
    switch (pick(6)) {
      case 0:  // overwrite a byte
        if (!text.empty()) text[pos] = random_byte();
        break;
      case 1:  // insert a byte
        text.insert(text.begin() + static_cast<std::ptrdiff_t>(pos), random_byte());
        break;
      case 2:  // delete a run
        text.erase(pos, 1 + pick(8));
        break;
      case 3:  // truncate
        text.resize(pos);
        break;
      case 4: {  // duplicate a run elsewhere
        const std::string run = text.substr(pos, 1 + pick(24));
        text.insert(pick(text.size() + 1), run);
        break;
      }
      default:  // a long digit run (overflow)
        text.insert(pos, std::string(1 + pick(30), static_cast<char>('0' + pick(10))));
        break;
    }
  }
  return text;
}

}  // namespace tidal::traces::testing
