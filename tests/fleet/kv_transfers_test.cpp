// KV transfers sharing links: max-min fair rates over the senders', receivers' and links'
// bandwidth, exact finish times, and the usage each link reports.
#include "sim/fleet/kv_transfers.h"

#include <gtest/gtest.h>

namespace tidal::fleet {
namespace {

// One link of `gb_per_s_per_gpu` (bytes per ns), optionally capped as a whole.
KvTransfers one_link(double gb_per_s_per_gpu, std::optional<double> cap = std::nullopt) {
  KvLinkSpec link;  // the pools' names are not read here
  link.from_pool = 0;
  link.to_pool = 1;
  link.gb_per_s_per_gpu = gb_per_s_per_gpu;
  link.gb_per_s = cap;
  return KvTransfers({link});
}

TEST(KvTransfers, ALoneTransferMovesAtTheSmallerSidesBandwidth) {
  KvTransfers transfers = one_link(10.0);
  // Sender 4 GPUs (40 B/ns), receiver 2 GPUs (20 B/ns): 1000 bytes take 50 ns.
  transfers.start(100, 7, 0, 0, 4, 1, 2, 1000.0);
  EXPECT_DOUBLE_EQ(transfers.rate_bytes_per_ns(0), 20.0);
  EXPECT_EQ(transfers.next_done_ns(), 150);
  EXPECT_TRUE(transfers.take_done(149).empty());
  const std::vector<KvTransfers::Done> done = transfers.take_done(150);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].request, 7);
  EXPECT_DOUBLE_EQ(done[0].bytes, 1000.0);
  EXPECT_EQ(transfers.num_active(), 0);
  EXPECT_EQ(transfers.next_done_ns(), KvTransfers::kNever);
  EXPECT_EQ(transfers.usage()[0].num_transfers, 1);
  EXPECT_EQ(transfers.usage()[0].busy_ns, 50);
}

TEST(KvTransfers, TransfersFromOneSenderShareItsBandwidthAndSpeedUpWhenOneEnds) {
  KvTransfers transfers = one_link(10.0);
  // Both leave replica 0 (1 GPU: 10 B/ns) for different receivers with 8 GPUs each.
  transfers.start(0, 1, 0, 0, 1, 10, 8, 100.0);
  transfers.start(0, 2, 0, 0, 1, 11, 8, 300.0);
  EXPECT_DOUBLE_EQ(transfers.rate_bytes_per_ns(0), 5.0);
  EXPECT_DOUBLE_EQ(transfers.rate_bytes_per_ns(1), 5.0);
  // The first is done at 20 ns; the second has 200 bytes left, then moves at 10 B/ns.
  EXPECT_EQ(transfers.next_done_ns(), 20);
  ASSERT_EQ(transfers.take_done(20).size(), 1u);
  EXPECT_DOUBLE_EQ(transfers.rate_bytes_per_ns(0), 10.0);
  EXPECT_EQ(transfers.next_done_ns(), 40);
  ASSERT_EQ(transfers.take_done(40).size(), 1u);
  EXPECT_EQ(transfers.usage()[0].busy_ns, 40);
  EXPECT_DOUBLE_EQ(transfers.usage()[0].bytes, 400.0);
}

TEST(KvTransfers, RatesAreMaxMinFair) {
  KvTransfers transfers = one_link(10.0);
  // a: 0 -> 10, b: 0 -> 11, c: 1 -> 11. Receiver 11 (1 GPU, 10 B/ns) is shared by b and c,
  // sender 0 (1 GPU) by a and b: every resource splits two ways, 5 B/ns each.
  transfers.start(0, 1, 0, 0, 1, 10, 1, 1000.0);
  transfers.start(0, 2, 0, 0, 1, 11, 1, 1000.0);
  transfers.start(0, 3, 0, 1, 1, 11, 1, 1000.0);
  EXPECT_DOUBLE_EQ(transfers.rate_bytes_per_ns(0), 5.0);
  EXPECT_DOUBLE_EQ(transfers.rate_bytes_per_ns(1), 5.0);
  EXPECT_DOUBLE_EQ(transfers.rate_bytes_per_ns(2), 5.0);
  // With a receiver of 4 GPUs for a, a still gets only what sender 0 leaves after b: b is
  // held to 5 by receiver 11, so a takes the other 5 of sender 0.
  KvTransfers wider = one_link(10.0);
  wider.start(0, 1, 0, 0, 1, 10, 4, 1000.0);
  wider.start(0, 2, 0, 0, 1, 11, 1, 1000.0);
  wider.start(0, 3, 0, 1, 1, 11, 1, 1000.0);
  EXPECT_DOUBLE_EQ(wider.rate_bytes_per_ns(0), 5.0);
  // A sender of 4 GPUs for c: receiver 11 splits 5 / 5 still, sender 0's a gets the rest.
  KvTransfers uneven = one_link(10.0);
  uneven.start(0, 1, 0, 0, 2, 10, 4, 1000.0);  // sender 0 has 20 B/ns
  uneven.start(0, 2, 0, 0, 2, 11, 1, 1000.0);  // receiver 11 has 10 B/ns
  uneven.start(0, 3, 0, 1, 4, 11, 1, 1000.0);
  EXPECT_DOUBLE_EQ(uneven.rate_bytes_per_ns(1), 5.0);
  EXPECT_DOUBLE_EQ(uneven.rate_bytes_per_ns(2), 5.0);
  EXPECT_DOUBLE_EQ(uneven.rate_bytes_per_ns(0), 15.0);
}

TEST(KvTransfers, ALinkCapIsSharedByEveryTransferOnIt) {
  KvTransfers transfers = one_link(100.0, 30.0);
  transfers.start(0, 1, 0, 0, 1, 10, 1, 300.0);
  transfers.start(0, 2, 0, 1, 1, 11, 1, 300.0);
  transfers.start(0, 3, 0, 2, 1, 12, 1, 300.0);
  for (size_t i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(transfers.rate_bytes_per_ns(i), 10.0);
  EXPECT_EQ(transfers.next_done_ns(), 30);
  EXPECT_EQ(transfers.take_done(30).size(), 3u);
}

TEST(KvTransfers, FinishTimesRoundUpToTheNanosecond) {
  KvTransfers transfers = one_link(3.0);
  transfers.start(0, 1, 0, 0, 1, 1, 1, 10.0);  // 3.33 ns
  EXPECT_EQ(transfers.next_done_ns(), 4);
  EXPECT_TRUE(transfers.take_done(3).empty());
  EXPECT_EQ(transfers.take_done(4).size(), 1u);
}

TEST(KvTransfers, ALateStartAdvancesTheOthersFirst) {
  KvTransfers transfers = one_link(10.0);
  transfers.start(0, 1, 0, 0, 1, 1, 1, 100.0);  // alone: 10 B/ns, done at 10
  transfers.start(5, 2, 0, 0, 1, 2, 1, 100.0);  // 50 bytes left of the first, now 5 B/ns
  EXPECT_EQ(transfers.next_done_ns(), 15);
  ASSERT_EQ(transfers.take_done(15).size(), 1u);
  // The second moved 50 bytes by 15 and has 50 left at 10 B/ns.
  EXPECT_EQ(transfers.next_done_ns(), 20);
}

TEST(KvTransfers, BadTransfersAreLogicErrors) {
  KvTransfers transfers = one_link(10.0);
  EXPECT_THROW(transfers.start(0, 1, 1, 0, 1, 1, 1, 10.0), std::logic_error);  // no link 1
  EXPECT_THROW(transfers.start(0, 1, 0, 0, 1, 1, 1, 0.0), std::logic_error);
  EXPECT_THROW(transfers.start(0, 1, 0, 0, 0, 1, 1, 10.0), std::logic_error);
  transfers.start(10, 1, 0, 0, 1, 1, 1, 10.0);
  EXPECT_THROW(transfers.start(5, 2, 0, 0, 1, 1, 1, 10.0), std::logic_error);  // time went back
}

}  // namespace
}  // namespace tidal::fleet
