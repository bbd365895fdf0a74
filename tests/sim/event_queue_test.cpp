#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace tidal::sim {
namespace {

TEST(EventQueue, PopsInTimeOrder) {
  EventQueue q;
  q.push(30, EventKind::step_end, 0, -1);
  q.push(10, EventKind::arrival, -1, 7);
  q.push(20, EventKind::replica_wake, 1, -1);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q.pop().time_ns, 10);
  EXPECT_EQ(q.pop().time_ns, 20);
  const Event last = q.pop();
  EXPECT_EQ(last.time_ns, 30);
  EXPECT_EQ(last.kind, EventKind::step_end);
  EXPECT_EQ(last.replica, 0);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, TiesBreakByInsertionOrder) {
  EventQueue q;
  for (int32_t i = 0; i < 100; ++i) q.push(5, EventKind::replica_wake, i, -1);
  for (int32_t i = 0; i < 100; ++i) {
    const Event e = q.pop();
    EXPECT_EQ(e.replica, i);
    EXPECT_EQ(e.seq, static_cast<uint64_t>(i));
  }
}

TEST(EventQueue, RandomPushesPopSortedByTimeThenSeq) {
  std::mt19937_64 rng(7);
  EventQueue q;
  std::vector<std::pair<int64_t, uint64_t>> expected;
  for (int i = 0; i < 10000; ++i) {
    const auto t = static_cast<int64_t>(rng() % 50);  // many ties
    const uint64_t seq = q.push(t, EventKind::arrival, -1, i);
    expected.emplace_back(t, seq);
    // Interleave pops so the heap is exercised in both directions.
    if (i % 3 == 2) {
      const Event e = q.pop();
      auto it = std::min_element(expected.begin(), expected.end());
      EXPECT_EQ(e.time_ns, it->first);
      EXPECT_EQ(e.seq, it->second);
      expected.erase(it);
    }
  }
  std::sort(expected.begin(), expected.end());
  for (const auto& [t, seq] : expected) {
    const Event e = q.pop();
    EXPECT_EQ(e.time_ns, t);
    EXPECT_EQ(e.seq, seq);
  }
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.num_pushed(), 10000u);
}

TEST(EventQueue, ReplaceTopEqualsPopThenPush) {
  std::mt19937_64 rng(11);
  EventQueue a;
  EventQueue b;
  for (int i = 0; i < 64; ++i) {
    const auto t = static_cast<int64_t>(rng() % 100);
    a.push(t, EventKind::step_end, i, -1);
    b.push(t, EventKind::step_end, i, -1);
  }
  for (int i = 0; i < 5000; ++i) {
    const auto t = static_cast<int64_t>(rng() % 1000) + a.top().time_ns;
    const Event from_a = a.top();
    a.replace_top(t, EventKind::step_end, from_a.replica, -1);
    const Event from_b = b.pop();
    b.push(t, EventKind::step_end, from_b.replica, -1);
    ASSERT_EQ(from_a.seq, from_b.seq);
    ASSERT_EQ(from_a.time_ns, from_b.time_ns);
  }
  while (!a.empty()) {
    const Event x = a.pop();
    const Event y = b.pop();
    EXPECT_EQ(x.seq, y.seq);
    EXPECT_EQ(x.replica, y.replica);
  }
  EXPECT_TRUE(b.empty());
}

}  // namespace
}  // namespace tidal::sim
