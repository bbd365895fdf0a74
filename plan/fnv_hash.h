// FNV-1a, 64 bit: a stable hash for candidate ids and plan fingerprints (same text, same
// hash, on every machine and build).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tidal::plan {

uint64_t fnv1a(std::string_view text);
// 16 lowercase hex digits.
std::string fnv1a_hex(std::string_view text);

}  // namespace tidal::plan
