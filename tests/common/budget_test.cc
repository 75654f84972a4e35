// Tests for mw/budget.h: the CPU and wall-clock allowance of one message.
#include "mw/budget.h"

#include <gtest/gtest.h>

#include <chrono>

namespace mw {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

TEST(Budget, UnlimitedIsNeverExceeded) {
  const Budget b;
  EXPECT_FALSE(b.limited());
  EXPECT_FALSE(b.Exceeded());
  EXPECT_FALSE(b.ExceededAt(hours(1000)));
  EXPECT_GE(b.CpuLeftAt(hours(1000)), hours(1));
}

TEST(Budget, ThreadCpuAdvancesWithWork) {
  const nanoseconds before = Budget::ThreadCpuNow();
  volatile unsigned sink = 0;
  for (unsigned i = 0; i < 20'000'000; ++i) sink = sink + i;
  EXPECT_GT(Budget::ThreadCpuNow(), before);
}

TEST(Budget, AReadingPastTheCpuAllowanceExceedsIt) {
  const nanoseconds now = Budget::ThreadCpuNow();
  const Budget b = Budget::StartAt(now, milliseconds(5), hours(1));
  EXPECT_TRUE(b.limited());
  EXPECT_FALSE(b.ExceededAt(now));
  EXPECT_EQ(b.CpuLeftAt(now), milliseconds(5));
  EXPECT_EQ(b.CpuLeftAt(now + milliseconds(2)), milliseconds(3));
  EXPECT_TRUE(b.ExceededAt(now + milliseconds(5)));
  EXPECT_EQ(b.CpuLeftAt(now + seconds(1)), nanoseconds::zero());
  // The reading-free forms read this thread's clock, which has not moved 5 ms.
  EXPECT_FALSE(b.Exceeded());
}

TEST(Budget, TheWallClockBoundsTheCpuLeft) {
  const nanoseconds now = Budget::ThreadCpuNow();
  const Budget b = Budget::StartAt(now, hours(1), milliseconds(50));
  EXPECT_LE(b.CpuLeftAt(now), milliseconds(50));
  const Budget spent = Budget::StartAt(now, hours(1), nanoseconds::zero());
  EXPECT_TRUE(spent.ExceededAt(now));
  EXPECT_TRUE(spent.Exceeded());
}

TEST(Budget, StartReadsTheClockItself) {
  const Budget spent = Budget::Start(nanoseconds::zero(), hours(1));
  EXPECT_TRUE(spent.Exceeded());
  const Budget ample = Budget::Start(hours(1), hours(1));
  EXPECT_FALSE(ample.Exceeded());
  EXPECT_GT(ample.CpuLeft(), hours(1) - seconds(10));
}

}  // namespace
}  // namespace mw
