// Tests for pipeline/src/stage_clock.h: consecutive stages timed with one
// reading of the thread's CPU clock per boundary.
#include "pipeline/src/stage_clock.h"

#include <gtest/gtest.h>

#include <chrono>

namespace mw::pipeline {
namespace {

using std::chrono::nanoseconds;

void Spin() {
  volatile unsigned sink = 0;
  for (unsigned i = 0; i < 5'000'000; ++i) sink = sink + i;
}

TEST(StageClock, LapsSplitTheTimeBetweenTheirBoundaries) {
  StageClock clock;
  const nanoseconds start = clock.last();
  nanoseconds first{0}, second{0};
  Spin();
  clock.Lap(&first);
  const nanoseconds between = clock.last();
  Spin();
  clock.Lap(&second);
  EXPECT_GT(first, nanoseconds::zero());
  EXPECT_GT(second, nanoseconds::zero());
  EXPECT_EQ(first, between - start);
  EXPECT_EQ(second, clock.last() - between);
  // Nothing between two stages is lost or counted twice.
  EXPECT_EQ(first + second, clock.last() - start);
}

TEST(StageClock, ALapWithoutAStageDropsItsTime) {
  StageClock clock;
  nanoseconds stage{0};
  Spin();
  clock.Lap(nullptr);
  const nanoseconds after_dropped = clock.last();
  Spin();
  clock.Lap(&stage);
  EXPECT_EQ(stage, clock.last() - after_dropped);
}

TEST(StageClock, AStageRunTwiceAddsUp) {
  // A store lookup repeated after a conflict: both attempts count.
  StageClock clock;
  nanoseconds lookup{0};
  Spin();
  clock.Lap(&lookup);
  const nanoseconds once = lookup;
  Spin();
  clock.Lap(&lookup);
  EXPECT_GT(lookup, once);
}

}  // namespace
}  // namespace mw::pipeline
