#include "keys.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "fingerprint/simhash.h"
#include "tests/store/test_util.h"

namespace mw::store {
namespace {

using fingerprint::BlockKey;
using fingerprint::Fingerprint;

// A fingerprint by hand: one byte of body, the given block keys, no CTPH.
Fingerprint WithBlocks(const std::vector<std::uint64_t>& blocks) {
  Fingerprint fp;
  fp.body_bytes = 1;
  fp.body_sha1[0] = 7;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    fp.blocks.keys.push_back({blocks[i], static_cast<std::uint32_t>(i), 10});
  }
  std::sort(fp.blocks.keys.begin(), fp.blocks.keys.end());
  return fp;
}

std::size_t Shared(const std::vector<std::uint32_t>& a,
                   const std::vector<std::uint32_t>& b) {
  std::vector<std::uint32_t> both;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                        std::back_inserter(both));
  return both.size();
}

TEST(Keys, EmptyBodyHasNone) {
  EXPECT_TRUE(IndexKeys(Fingerprint{}, fingerprint::Options{}).empty());
  EXPECT_TRUE(
      IndexKeys(fingerprint::Compute("", fingerprint::Options{}), {}).empty());
}

TEST(Keys, SortedDistinctAndStable) {
  const fingerprint::Options o;
  const Fingerprint fp = fingerprint::Compute(testing::Body(1, 20), o);
  const std::vector<std::uint32_t> keys = IndexKeys(fp, o);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ(std::set<std::uint32_t>(keys.begin(), keys.end()).size(),
            keys.size());
  EXPECT_EQ(keys, IndexKeys(fp, o));
}

TEST(Keys, BlocksAreABottomKSample) {
  const fingerprint::Options o;
  std::vector<std::uint64_t> blocks;
  for (std::uint64_t i = 1; i <= 30; ++i) blocks.push_back(i * 1000);
  const Fingerprint fp = WithBlocks(blocks);
  // The exact key, kBlockSample block keys and k + 1 SimHash bands.
  EXPECT_EQ(IndexKeys(fp, o).size(),
            1 + kBlockSample + o.simhash_max_distance + 1);
  // A block past the smallest kBlockSample changes nothing ...
  blocks.back() = 999999;
  EXPECT_EQ(IndexKeys(WithBlocks(blocks), o), IndexKeys(fp, o));
  // ... one among them changes one key.
  blocks.front() = 5;
  EXPECT_EQ(Shared(IndexKeys(WithBlocks(blocks), o), IndexKeys(fp, o)),
            IndexKeys(fp, o).size() - 1);
  // With other_blocks, each list gives half the sample on its own: the
  // first list keeps its kBlockSample / 2 smallest, the other adds its own.
  Fingerprint both = fp;
  both.other_blocks = WithBlocks({1, 2}).blocks;
  EXPECT_EQ(Shared(IndexKeys(both, o), IndexKeys(fp, o)),
            IndexKeys(fp, o).size() - kBlockSample / 2);
  EXPECT_EQ(IndexKeys(both, o).size(),
            IndexKeys(fp, o).size() - kBlockSample / 2 + 2);
}

// A list that changes wholesale (every line rewrapped) leaves the other
// list's sample, so the message is still found through it.
TEST(Keys, EachListSampledOnItsOwn) {
  const fingerprint::Options o;
  std::vector<std::uint64_t> sentences;
  for (std::uint64_t i = 1; i <= 30; ++i) sentences.push_back(i * 1000);
  Fingerprint a = WithBlocks(sentences);
  Fingerprint b = a;
  std::vector<std::uint64_t> lines_a, lines_b;
  for (std::uint64_t i = 1; i <= 30; ++i) {
    lines_a.push_back(i);  // smaller than every sentence key
    lines_b.push_back(100 + i);
  }
  a.other_blocks = WithBlocks(lines_a).blocks;
  b.other_blocks = WithBlocks(lines_b).blocks;
  // Only block keys can be shared: other body, SimHash far apart.
  b.body_sha1[0] ^= 1;
  b.simhash = ~a.simhash;
  EXPECT_EQ(Shared(IndexKeys(a, o), IndexKeys(b, o)), kBlockSample / 2);
}

TEST(Keys, SimHashWithinDistanceSharesABand) {
  const fingerprint::Options o;
  Fingerprint a = WithBlocks({1});
  Fingerprint b = WithBlocks({2});
  a.simhash = 0x0123456789abcdefull;
  b.body_sha1[0] = 8;
  b.simhash = a.simhash ^ 0x8000000100000001ull;  // 3 bits apart
  EXPECT_GE(Shared(IndexKeys(a, o), IndexKeys(b, o)), 1u);
  b.simhash = ~a.simhash;
  EXPECT_EQ(Shared(IndexKeys(a, o), IndexKeys(b, o)), 0u);
}

TEST(Keys, CtphGramsAreSampledAndComparableAcrossBlockSizes) {
  const fingerprint::Options o;
  Fingerprint a = WithBlocks({1});
  Fingerprint b = WithBlocks({2});
  const std::string sig =
      "Zx9kQwErTyUiOpAsDfGhJkLzXcVbNm1234567890abcdefghijklmnopqrstuvwxyzAB";
  a.ctph = {3, "short", sig.substr(0, 64)};
  b.ctph = {6, sig.substr(0, 64), "tiny"};
  const std::size_t base = IndexKeys(WithBlocks({1}), o).size();
  const std::size_t grams = IndexKeys(a, o).size() - base;
  // 58 grams, about one in four kept; "short" and "tiny" give none.
  EXPECT_GT(grams, 4u);
  EXPECT_LT(grams, 30u);
  // Without CTPH, the two share the exact key and the SimHash bands (all
  // three bodies are alike there).
  const std::size_t common =
      Shared(IndexKeys(WithBlocks({1}), o), IndexKeys(WithBlocks({2}), o));
  // a's signature at 2B = 6 and b's at B = 6 share all their grams.
  EXPECT_EQ(Shared(IndexKeys(a, o), IndexKeys(b, o)), common + grams);
  // The same symbols at another block size share none.
  Fingerprint c = WithBlocks({3});
  c.ctph = {12, sig.substr(0, 64), ""};
  EXPECT_EQ(Shared(IndexKeys(a, o), IndexKeys(c, o)), common);
}

TEST(Keys, NearDuplicateTextsShareKeys) {
  const fingerprint::Options o;
  const std::string body = testing::Body(42, 30);
  const auto a = IndexKeys(fingerprint::Compute(body, o), o);
  const auto b =
      IndexKeys(fingerprint::Compute(testing::EditSentence(body, 3, 9), o), o);
  const auto c = IndexKeys(fingerprint::Compute(testing::Body(43, 30), o), o);
  EXPECT_GE(Shared(a, b), 8u);
  EXPECT_LE(Shared(a, c), 1u);
}

TEST(Keys, RowRangesAreContiguousInSignedOrder) {
  for (const std::uint32_t key :
       {0u, 1u, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xffffffffu}) {
    const RowRange r = KeyRows(key);
    EXPECT_LT(r.lo, r.hi);
    for (const std::int64_t id :
         {std::int64_t{1}, std::int64_t{0xffffffff}, std::int64_t{1} << 33}) {
      const std::int64_t row = IndexRow(key, id);
      EXPECT_GE(row, r.lo);
      EXPECT_LE(row, r.hi);
      EXPECT_EQ(IndexRowMessage(row), static_cast<std::uint32_t>(id));
    }
    EXPECT_EQ(r.hi - r.lo, 0xffffffffll);
  }
  // Newer messages of one key sort after older ones.
  EXPECT_LT(IndexRow(0x90000000u, 5), IndexRow(0x90000000u, 6));
}

TEST(Keys, ResolveMessageId) {
  EXPECT_EQ(ResolveMessageId(5, 10), 5);
  EXPECT_EQ(ResolveMessageId(11, 10), 0);
  EXPECT_EQ(ResolveMessageId(0, 10), 0);
  const std::int64_t big = (std::int64_t{1} << 32) + 10;
  EXPECT_EQ(ResolveMessageId(5, big), (std::int64_t{1} << 32) + 5);
  EXPECT_EQ(ResolveMessageId(11, big), 11);
}

}  // namespace
}  // namespace mw::store
