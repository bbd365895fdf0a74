#include "engine/sched/admission.h"

#include <stdexcept>

#include <gtest/gtest.h>

#include "engine/sched/config.h"

namespace tidal::sched {
namespace {

TEST(Admission, RegistryNames) {
  ASSERT_EQ(admission_policy_names().size(), 2u);
  EXPECT_EQ(admission_policy_names()[0], "max_utilization");
  EXPECT_EQ(admission_policy_names()[1], "guaranteed_no_evict");
  EXPECT_THROW(make_admission_policy("lottery"), std::logic_error);
}

TEST(Admission, MaxUtilizationCountsOnlyThisStepAndTheWatermark) {
  const auto policy = make_admission_policy("max_utilization");
  EXPECT_TRUE(policy->allows_preemption());
  AdmissionQuery q{.num_free_blocks = 100,
                   .num_watermark_blocks = 10,
                   .num_blocks_now = 90,
                   .num_blocks_later = 1000,
                   .num_reserved_blocks = 1000};
  EXPECT_TRUE(policy->admits(q));
  q.num_blocks_now = 91;
  EXPECT_FALSE(policy->admits(q));
}

TEST(Admission, GuaranteedNoEvictReservesLifetimes) {
  const auto policy = make_admission_policy("guaranteed_no_evict");
  EXPECT_FALSE(policy->allows_preemption());
  AdmissionQuery q{.num_free_blocks = 100,
                   .num_watermark_blocks = 10,
                   .num_blocks_now = 30,
                   .num_blocks_later = 20,
                   .num_reserved_blocks = 40};
  EXPECT_TRUE(policy->admits(q));  // 30 + 20 + 40 == 100 - 10
  q.num_reserved_blocks = 41;
  EXPECT_FALSE(policy->admits(q));
}

}  // namespace
}  // namespace tidal::sched
