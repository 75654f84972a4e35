// Tests for mime/src/gumbo_arena.h: gumbo's allocator and its budgets. The
// ASan build (scripts/test) checks that an abandoned parse leaks nothing.
#include "mime/src/gumbo_arena.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "mw/budget.h"

namespace mw::mime::internal {
namespace {

constexpr std::size_t kPlenty = 64u << 20;

std::string Document(int paragraphs) {
  std::string html = "<html><body>";
  for (int i = 0; i < paragraphs; ++i) html += "<p class=x>Hello <b>world</b>";
  return html;
}

const GumboNode* Body(const GumboOutput* output) {
  const GumboVector& html = output->root->v.element.children;
  return static_cast<const GumboNode*>(html.data[1]);
}

TEST(GumboArena, ParsesWithinBudget) {
  Arena arena(kPlenty, 10.0);
  GumboOutput* output = arena.Parse(Document(3));
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(Body(output)->v.element.tag, GUMBO_TAG_BODY);
  EXPECT_EQ(Body(output)->v.element.children.length, 3u);
  EXPECT_GT(arena.used(), 0u);
  EXPECT_LE(arena.used(), kPlenty);
  EXPECT_FALSE(arena.timed_out());
  arena.FreeAll();
  EXPECT_EQ(arena.used(), 0u);
}

TEST(GumboArena, MemoryExhaustionEscapesAndFreesEverything) {
  // Enough for gumbo's first allocations, not for the tree: the longjmp path.
  Arena arena(4096, 10.0);
  EXPECT_EQ(arena.Parse(Document(1000)), nullptr);
  EXPECT_FALSE(arena.timed_out());
  EXPECT_EQ(arena.used(), 0u);
}

TEST(GumboArena, TheDeadlineRunsFromTheCallersReading) {
  // A reading a whole CPU budget old: the first clock check (after
  // kClockEvery allocations) finds the time spent.
  const auto now = Budget::ThreadCpuNow();
  Arena stale(kPlenty, 0.5);
  EXPECT_EQ(stale.Parse(Document(2000), now - std::chrono::seconds(1)),
            nullptr);
  EXPECT_TRUE(stale.timed_out());
  Arena fresh(kPlenty, 10.0);
  EXPECT_NE(fresh.Parse(Document(2000), now), nullptr);
  EXPECT_FALSE(fresh.timed_out());
}

TEST(GumboArena, ZeroBudgetFailsAtTheFirstAllocation) {
  Arena arena(0, 10.0);
  EXPECT_EQ(arena.Parse("x"), nullptr);
  EXPECT_EQ(arena.used(), 0u);
}

TEST(GumboArena, CpuBudgetEscapes) {
  // No CPU time at all: the first clock check (after kClockEvery
  // allocations) is past the deadline.
  Arena arena(kPlenty, 0.0);
  EXPECT_EQ(arena.Parse(Document(1000)), nullptr);
  EXPECT_TRUE(arena.timed_out());
  EXPECT_EQ(arena.used(), 0u);
}

TEST(GumboArena, SmallDocumentFinishesBeforeTheFirstClockCheck) {
  Arena arena(kPlenty, 0.0);
  EXPECT_NE(arena.Parse("<p>x"), nullptr);
  EXPECT_FALSE(arena.timed_out());
}

TEST(GumboArena, UsableAgainAfterAnEscape) {
  Arena arena(1u << 20, 10.0);
  EXPECT_EQ(arena.Parse(Document(20000)), nullptr);  // over 1 MiB
  GumboOutput* output = arena.Parse(Document(2));
  ASSERT_NE(output, nullptr);
  EXPECT_EQ(Body(output)->v.element.children.length, 2u);
}

// Gumbo frees as it goes (string buffers that grow, the tokenizer's
// temporaries): the freed small blocks are handed out again, so what the
// arena takes from malloc stays near what gumbo holds.
TEST(GumboArena, FreedBlocksAreReused) {
  Arena arena(kPlenty, 10.0);
  ASSERT_NE(arena.Parse(Document(5000)), nullptr);
  // 5.96 MB for 3.45 MB held (the headers), 8.59 MB without the reuse.
  EXPECT_LT(arena.footprint(), 2 * arena.used());
}

TEST(GumboArena, DeepTreeIsFreedWithoutRecursion) {
  // gumbo_destroy_output would recurse once per level; the arena frees a
  // list. Destruction of the arena is the test (with ASan: no leak).
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += "<span>";
  Arena arena(kPlenty * 4, 30.0);
  EXPECT_NE(arena.Parse(deep), nullptr);
}

}  // namespace
}  // namespace mw::mime::internal
