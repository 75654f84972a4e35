// The client's reading of index buckets. The whole Find through a real
// server, against the SQLite store's answer, is in redis_store_test; here
// the rules on hand-built buckets: names, split markers, per-key caps, the
// ranking and pruned entries.
#include "redis_buckets.h"

#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mw::store {
namespace {

// One 7-byte entry: the key's low 18 bits, then the id's low 32, big-endian.
std::string Entry(std::uint32_t key, std::uint64_t id) {
  const std::uint32_t s = key & 0x3ffff;
  const auto low = static_cast<std::uint32_t>(id);
  return {static_cast<char>(s >> 16),   static_cast<char>(s >> 8),
          static_cast<char>(s),         static_cast<char>(low >> 24),
          static_cast<char>(low >> 16), static_cast<char>(low >> 8),
          static_cast<char>(low)};
}

TEST(RedisBucketsTest, NamesAddFourBitsADepth) {
  // top 14 bits 5, then 3, 7, 1, 15, and 2 bits left over.
  const std::uint32_t key =
      (5u << 18) | (3u << 14) | (7u << 10) | (1u << 6) | (15u << 2) | 2u;
  const auto n = BucketNames("{mw:x}:", key);
  EXPECT_EQ(n[0], "{mw:x}:k:5");
  EXPECT_EQ(n[1], "{mw:x}:k:5.3");
  EXPECT_EQ(n[2], "{mw:x}:k:5.3.7");
  EXPECT_EQ(n[3], "{mw:x}:k:5.3.7.1");
  EXPECT_EQ(n[4], "{mw:x}:k:5.3.7.1.15");
  EXPECT_EQ(BucketNames("{mw:x}:", 0xffffffffu)[1], "{mw:x}:k:16383.15");
}

TEST(RedisBucketsTest, TheHoldingBucketIsTheFirstThatIsNoMarker) {
  const std::string marker(1, '\0');
  const std::string e = Entry(1, 1);
  using Depths = std::vector<std::optional<std::string_view>>;
  using State = BucketRead::State;
  const auto read = [](const Depths& d) { return ReadBucketDepths(d); };
  BucketRead r = read({e, std::nullopt});
  EXPECT_EQ(r.state, State::kHolds);
  EXPECT_EQ(r.entries, e);
  EXPECT_EQ(r.depth, 0);
  r = read({marker, marker, e, std::nullopt, std::nullopt});
  EXPECT_EQ(r.state, State::kHolds);
  EXPECT_EQ(r.entries, e);
  EXPECT_EQ(r.depth, 2);
  r = read({std::nullopt});
  EXPECT_EQ(r.state, State::kEmpty);
  EXPECT_EQ(r.depth, 0);
  // A marker whose part is missing: no entries under it.
  r = read({marker, std::nullopt, e});
  EXPECT_EQ(r.state, State::kEmpty);
  EXPECT_EQ(r.depth, 1);
  r = read({marker, marker, marker, marker, marker});
  EXPECT_EQ(r.state, State::kEmpty);
  EXPECT_EQ(r.depth, kBucketMaxDepth);
}

// Find reads only the depths a store has shown it (redis_store.cc): a key
// whose every depth read is a marker needs the deeper ones read too.
TEST(RedisBucketsTest, MarkersDownToTheLastDepthReadAskForDeeperOnes) {
  const std::string marker(1, '\0');
  using Depths = std::vector<std::optional<std::string_view>>;
  BucketRead r = ReadBucketDepths(Depths{marker});
  EXPECT_EQ(r.state, BucketRead::State::kDeeper);
  EXPECT_EQ(r.depth, 1);
  r = ReadBucketDepths(Depths{marker, marker});
  EXPECT_EQ(r.state, BucketRead::State::kDeeper);
  EXPECT_EQ(r.depth, 2);
  r = ReadBucketDepths(Depths{marker, marker, marker, marker});
  EXPECT_EQ(r.state, BucketRead::State::kDeeper);
  EXPECT_EQ(r.depth, kBucketMaxDepth);
}

TEST(RedisBucketsTest, RanksExactFirstThenSharedThenNewest) {
  // Keys 10 and 11 share a bucket; 20 is the exact key.
  const std::string b1 =
      Entry(10, 1) + Entry(11, 2) + Entry(10, 2) + Entry(11, 3) + Entry(10, 3);
  const std::string b2 = Entry(20, 1) + Entry(99, 4);
  const std::vector<KeyBucket> buckets = {{10, b1}, {11, b1}, {20, b2}};
  const auto r = RankBucketHits(buckets, 20, 32, 10, 1);
  const std::vector<BucketHit> want = {
      {1, 2, true}, {3, 2, false}, {2, 2, false}};
  EXPECT_EQ(r, want);
}

TEST(RedisBucketsTest, OnlyTheNewestEntriesOfAKeyCount) {
  std::string b;
  for (std::uint64_t id = 1; id <= 6; ++id) b += Entry(7, id);
  const std::vector<KeyBucket> buckets = {{7, b}};
  const auto r = RankBucketHits(buckets, 0, 2, 6, 1);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].id, 6);
  EXPECT_EQ(r[1].id, 5);
}

TEST(RedisBucketsTest, PrunedAndUnresolvableEntriesAreLeftOut) {
  const std::string b = Entry(7, 2) + Entry(7, 5) + Entry(7, 9);
  const std::vector<KeyBucket> buckets = {{7, b}};
  // lowest 3 drops id 2; max 8 makes low 9 name no stored id (9 - 2^32 < 1).
  const auto r = RankBucketHits(buckets, 0, 32, 8, 3);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].id, 5);
}

TEST(RedisBucketsTest, AKeyCountsOnceForAMessage) {
  // Never written so; a damaged reply must not rank a message above others.
  const std::string b = Entry(7, 3) + Entry(7, 3) + Entry(8, 2);
  const std::vector<KeyBucket> buckets = {{7, b}, {8, b}};
  const auto r = RankBucketHits(buckets, 0, 32, 9, 1);
  const std::vector<BucketHit> want = {{3, 1, false}, {2, 1, false}};
  EXPECT_EQ(r, want);
}

TEST(RedisBucketsTest, LowBitsResolveToTheLargestIdAtOrBelowTheLast) {
  const std::uint64_t w = std::uint64_t{1} << 32;
  // Past 2^32 ids: low 5 is w + 5 when the last id is w + 10, and 5 when it
  // is w + 3 (w + 5 does not exist yet).
  const std::string b = Entry(7, 5);
  const std::vector<KeyBucket> buckets = {{7, b}};
  EXPECT_EQ(RankBucketHits(buckets, 0, 32, w + 10, 1).at(0).id,
            static_cast<std::int64_t>(w + 5));
  EXPECT_EQ(RankBucketHits(buckets, 0, 32, w + 3, 1).at(0).id, 5);
}

}  // namespace
}  // namespace mw::store
