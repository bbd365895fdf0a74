// A small open-addressing hash map from 64-bit keys to int32 values, for the scheduler's hot
// paths (block hash -> block id, request id -> slot). Linear probing over one array of
// buckets, backward-shift deletion, power-of-two capacity at most half full; it never iterates,
// so its layout can never leak into output order.
#pragma once

#include <cstdint>
#include <vector>

namespace tidal::kv {

// Finalizer of splitmix64: a cheap, well-mixing bijection on 64-bit values.
inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

class FlatMap {
 public:
  static constexpr int32_t kAbsent = -1;

  // Room for `expected_size` entries before the first rehash.
  explicit FlatMap(int64_t expected_size = 16) { rehash(capacity_for(expected_size)); }

  int64_t size() const { return size_; }
  // Bytes its bucket array reserves (it grows by doubling as entries arrive).
  int64_t num_reserved_bytes() const {
    return static_cast<int64_t>(buckets_.capacity() * sizeof(Bucket));
  }

  // Removes every entry, keeping the capacity.
  void clear() {
    for (Bucket& b : buckets_) b.value = kAbsent;
    size_ = 0;
  }

  // The value stored under `key`, or kAbsent.
  int32_t find(uint64_t key) const {
    for (uint64_t i = mix64(key) & mask_;; i = (i + 1) & mask_) {
      const Bucket& b = buckets_[i];
      if (b.value == kAbsent) return kAbsent;
      if (b.key == key) return b.value;
    }
  }

  // Inserts or overwrites; `value` must not be kAbsent.
  void insert(uint64_t key, int32_t value) {
    if (2 * (size_ + 1) > static_cast<int64_t>(buckets_.size())) rehash(2 * buckets_.size());
    uint64_t i = mix64(key) & mask_;
    for (; buckets_[i].value != kAbsent; i = (i + 1) & mask_) {
      if (buckets_[i].key == key) {
        buckets_[i].value = value;
        return;
      }
    }
    buckets_[i] = {key, value};
    ++size_;
  }

  // Removes `key` if present; returns whether it was.
  bool erase(uint64_t key) {
    uint64_t i = mix64(key) & mask_;
    for (;; i = (i + 1) & mask_) {
      if (buckets_[i].value == kAbsent) return false;
      if (buckets_[i].key == key) break;
    }
    // Backward shift: pull later members of the probe run into the hole.
    uint64_t hole = i;
    for (uint64_t j = (i + 1) & mask_; buckets_[j].value != kAbsent; j = (j + 1) & mask_) {
      const uint64_t home = mix64(buckets_[j].key) & mask_;
      // Entry j may fill the hole when its home is not cyclically inside (hole, j].
      const bool home_in_range =
          hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!home_in_range) {
        buckets_[hole] = buckets_[j];
        hole = j;
      }
    }
    buckets_[hole].value = kAbsent;
    --size_;
    return true;
  }

 private:
  struct Bucket {
    uint64_t key = 0;
    int32_t value = kAbsent;  // kAbsent marks an empty bucket
  };

  static uint64_t capacity_for(int64_t expected_size) {
    uint64_t capacity = 16;
    while (capacity < 2 * static_cast<uint64_t>(expected_size > 0 ? expected_size : 1)) {
      capacity *= 2;
    }
    return capacity;
  }

  void rehash(uint64_t capacity) {
    std::vector<Bucket> old(capacity);  // [capacity]
    old.swap(buckets_);
    mask_ = capacity - 1;
    size_ = 0;
    for (const Bucket& b : old) {
      if (b.value != kAbsent) insert(b.key, b.value);
    }
  }

  std::vector<Bucket> buckets_;  // [capacity]
  uint64_t mask_ = 0;
  int64_t size_ = 0;
};

}  // namespace tidal::kv
