// Tests for langid/src/scratch_table.h: the memo's open-addressing table and
// growable array, above all what they keep and give back between texts.
#include "langid/src/scratch_table.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace mw::langid::internal {
namespace {

struct Slot {
  std::uint32_t gen = 0;
  std::uint64_t hash = 0;
  int value = 0;
};

Slot* Enter(ScratchTable<Slot>* t, std::uint64_t hash, bool* fresh) {
  return t->Find(
      hash, [&](const Slot& s) { return s.hash == hash; }, fresh);
}

TEST(ScratchTable, SlotsLastUntilReset) {
  ScratchTable<Slot> t;
  t.Reset(64);
  bool fresh = false;
  Enter(&t, 7, &fresh)->value = 70;
  EXPECT_TRUE(fresh);
  for (std::uint64_t h = 100; h < 200; ++h) Enter(&t, h, &fresh);  // grows
  EXPECT_EQ(t.used(), 101u);
  EXPECT_GE(t.capacity(), 256u);
  const Slot* s = Enter(&t, 7, &fresh);
  EXPECT_FALSE(fresh);
  EXPECT_EQ(s->value, 70);  // kept across the growth
  t.Reset(64);
  EXPECT_EQ(t.used(), 0u);
  EXPECT_TRUE(Enter(&t, 7, &fresh)->value == 0 && fresh);
}

TEST(ScratchTable, OverKeptAndFree) {
  ScratchTable<Slot> t;
  t.Reset(64);
  bool fresh = false;
  for (std::uint64_t h = 0; h < 100; ++h) Enter(&t, h, &fresh);
  EXPECT_FALSE(t.OverKept());
  t.Trim();  // within its cap: kept
  EXPECT_EQ(t.used(), 100u);
  for (std::uint64_t h = 100; h < ScratchTable<Slot>::kMaxKeptSlots; ++h) {
    Enter(&t, h, &fresh);
  }
  EXPECT_TRUE(t.OverKept());  // doubled at half load past the cap
  t.Trim();
  EXPECT_EQ(t.capacity(), 0u);
  EXPECT_EQ(t.used(), 0u);
  EXPECT_EQ(t.HeldBytes(), 0u);
  t.Reset(64);
  Enter(&t, 5, &fresh);
  EXPECT_TRUE(fresh);
  t.Free();
  EXPECT_EQ(t.HeldBytes(), 0u);
  EXPECT_FALSE(t.OverKept());
}

TEST(Buffer, TrimGivesBackOnlyPastItsCap) {
  Buffer<double> b;
  b.Extend(10)[0] = 1.5;
  b.Trim(1024);
  EXPECT_EQ(b.size(), 10u);
  EXPECT_EQ(b.data()[0], 1.5);
  b.Trim(0);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.capacity(), 0u);
}

TEST(Buffer, AppendCopiesARunAndSaysWhereItStarts) {
  Buffer<int> b;
  const int first[] = {1, 2, 3};
  const int second[] = {4, 5};
  EXPECT_EQ(b.Append(first, 3), 0u);
  EXPECT_EQ(b.Append(second, 2), 3u);
  EXPECT_EQ(b.Append(second, 0), 5u);
  ASSERT_EQ(b.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(b.data()[i], i + 1);
}

}  // namespace
}  // namespace mw::langid::internal
