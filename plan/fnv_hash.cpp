#include "plan/fnv_hash.h"

#include <fmt/format.h>

namespace tidal::plan {

uint64_t fnv1a(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string fnv1a_hex(std::string_view text) {
  return fmt::format("{:016x}", fnv1a(text));
}

}  // namespace tidal::plan
