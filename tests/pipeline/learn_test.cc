// pipeline::Learn against a real SQLite store: the mark lands on the cluster
// Check would put the message in, later copies follow it, and learning a
// copy that was already recorded does not count it twice.
#include "pipeline/learn.h"

#include <gtest/gtest.h>

#include <string>

#include "pipeline/check.h"
#include "testutil.h"

namespace mw::pipeline {
namespace {

using testing::Env;
using testing::Fixture;
using testing::OpenStore;
using testing::TempDir;
using testing::TestAnalyzer;
using testing::Variant;

constexpr store::UnixMillis kT0 = 1'790'000'000'000;
constexpr store::UnixMillis kMinute = 60'000;

TEST(Learn, SpamMarkMakesLaterCopiesSpread) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer();
  ASSERT_TRUE(db && analyzer);
  const std::string base = Fixture("fp-faq-a.eml");
  // Nothing known yet: learning starts the cluster.
  auto learned =
      Learn(*analyzer, *db, Variant(base, 0), {}, store::Mark::kSpam, kT0);
  ASSERT_TRUE(learned.has_value()) << learned.error().message();
  EXPECT_TRUE(learned->started);
  EXPECT_EQ(learned->cluster.mark, store::Mark::kSpam);
  EXPECT_EQ(learned->cluster.size, 1u);
  auto o = Check(*analyzer, db.get(), Variant(base, 1), Env("a@one.example"),
                 {.now = kT0 + kMinute});
  ASSERT_TRUE(o && o->wave);
  EXPECT_EQ(o->wave->cluster, learned->cluster.id);
  EXPECT_EQ(o->wave->kind, WaveKind::kSpread);
  EXPECT_EQ(o->wave->reason, WaveReason::kSpam);
}

TEST(Learn, HamOutweighsTheCountsAndIsNotCountedTwice) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer();
  ASSERT_TRUE(db && analyzer);
  const std::string base = Fixture("fp-faq-a.eml");
  for (int i = 0; i < 6; ++i) {
    auto o = Check(*analyzer, db.get(), Variant(base, i),
                   Env("x@s" + std::to_string(i) + ".example"),
                   {.now = kT0 + i * kMinute});
    ASSERT_TRUE(o.has_value());
    if (i > 0) {
      EXPECT_EQ(o->wave->kind, WaveKind::kSpread);
    }
  }
  // A user moves the fourth copy out of Junk.
  auto learned = Learn(*analyzer, *db, Variant(base, 3), {}, store::Mark::kHam,
                       kT0 + 7 * kMinute);
  ASSERT_TRUE(learned.has_value()) << learned.error().message();
  EXPECT_FALSE(learned->started);
  EXPECT_EQ(learned->cluster.size, 6u);
  EXPECT_EQ(learned->cluster.mark, store::Mark::kHam);
  auto o = Check(*analyzer, db.get(), Variant(base, 7), Env("x@s7.example"),
                 {.now = kT0 + 8 * kMinute});
  ASSERT_TRUE(o && o->wave);
  EXPECT_EQ(o->wave->kind, WaveKind::kBulk);
  EXPECT_EQ(o->wave->reason, WaveReason::kHam);
  EXPECT_TRUE(o->wave->wave);
  // The site changes its mind: the latest word stands.
  ASSERT_TRUE(Learn(*analyzer, *db, Variant(base, 2), {}, store::Mark::kSpam,
                    kT0 + 9 * kMinute));
  auto again = Check(*analyzer, db.get(), Variant(base, 8), Env("x@s8.example"),
                     {.now = kT0 + 10 * kMinute});
  ASSERT_TRUE(again && again->wave);
  EXPECT_EQ(again->wave->reason, WaveReason::kSpam);
}

TEST(Learn, NearEmptyBodyIsRefused) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer();
  ASSERT_TRUE(db && analyzer);
  auto learned =
      Learn(*analyzer, *db, "From: a@example.org\nSubject: x\n\nok\n", {},
            store::Mark::kSpam, kT0);
  ASSERT_FALSE(learned.has_value());
  EXPECT_EQ(learned.error().code(), Error::Code::kInvalidArgument);
}

}  // namespace
}  // namespace mw::pipeline
