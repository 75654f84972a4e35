// Tests for CTPH signatures (fingerprint/src/ctph.cc).
#include "fingerprint/ctph.h"

#include <fuzzy.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

namespace mw::fingerprint {
namespace {

std::string RandomText(std::size_t bytes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  static constexpr std::string_view kWords[] = {
      "the",  "offer",   "free",   "money", "click",
      "here", "meeting", "report", "today", "now"};
  std::string out;
  while (out.size() < bytes) {
    out += kWords[rng() % std::size(kWords)];
    out += (rng() % 12 == 0) ? ".\n" : " ";
  }
  return out;
}

TEST(ComputeCtph, EmptyInputHasNoSignature) {
  const Ctph c = ComputeCtph("");
  EXPECT_EQ(c.block_size, 0u);
  EXPECT_TRUE(c.sig.empty());
  EXPECT_FALSE(CtphEditRate(c, c).has_value());
}

TEST(ComputeCtph, BlockSizeDoublesUntilSignatureFits) {
  // spamsum starts from B = 3 and picks the smallest B·2^k whose expected
  // signature length, size / B, is at most 64; the signature itself never
  // exceeds 64 symbols, at B or 2B.
  for (const std::size_t size :
       {100u, 1000u, 5000u, 20000u, 100000u, 400000u}) {
    const Ctph c = ComputeCtph(RandomText(size, size));
    SCOPED_TRACE(size);
    EXPECT_GE(c.block_size, 3u);
    EXPECT_EQ(c.block_size % 3, 0u);
    const std::uint32_t power = c.block_size / 3;
    EXPECT_EQ(power & (power - 1), 0u) << "B is 3·2^k";
    EXPECT_LE(c.sig.size(), kCtphMaxLength);
    EXPECT_LE(c.sig2.size(), kCtphMaxLength);
    EXPECT_FALSE(c.sig.empty());
    if (c.block_size > 3) {
      EXPECT_GT(c.block_size * kCtphMaxLength, size / 4);
    }
  }
  // Larger inputs never get a smaller block size.
  EXPECT_LT(ComputeCtph(RandomText(2000, 1)).block_size,
            ComputeCtph(RandomText(200000, 1)).block_size);
}

TEST(ComputeCtph, MatchesSsdeepTextForm) {
  // Same construction as ssdeep: the B and first signature agree with
  // fuzzy_hash_buf.
  const std::string text = RandomText(30000, 7);
  char ssdeep[FUZZY_MAX_RESULT];
  ASSERT_EQ(fuzzy_hash_buf(reinterpret_cast<const unsigned char*>(text.data()),
                           static_cast<std::uint32_t>(text.size()), ssdeep),
            0);
  const Ctph c = ComputeCtph(text);
  const std::string s = ssdeep;
  EXPECT_EQ(s.substr(0, s.find(':')), std::to_string(c.block_size));
  EXPECT_EQ(ToString(c).substr(0, ToString(c).find(':', s.find(':') + 1)),
            s.substr(0, s.find(':', s.find(':') + 1)));
}

TEST(CtphEditRate, IdenticalTextsRateZero) {
  const Ctph c = ComputeCtph(RandomText(8000, 3));
  ASSERT_TRUE(CtphEditRate(c, c).has_value());
  EXPECT_EQ(*CtphEditRate(c, c), 0.0);
}

TEST(CtphEditRate, SmallEditGivesSmallRateUnrelatedGivesLarge) {
  const std::string a = RandomText(8000, 3);
  std::string b = a;
  b.insert(4000, "an inserted sentence of unrelated words. ");
  const auto near = CtphEditRate(ComputeCtph(a), ComputeCtph(b));
  ASSERT_TRUE(near.has_value());
  EXPECT_LT(*near, 0.1);
  const auto far =
      CtphEditRate(ComputeCtph(a), ComputeCtph(RandomText(8000, 99)));
  ASSERT_TRUE(far.has_value());
  EXPECT_GT(*far, 0.3);
}

TEST(CtphEditRate, AdjacentBlockSizesCompareThroughTheTwoBSignature) {
  Ctph small{.block_size = 48, .sig = "AAAA", .sig2 = "abcdefgh"};
  Ctph large{.block_size = 96, .sig = "abcdefgx", .sig2 = "zz"};
  // small's 2B signature against large's B signature: one substitution over 16
  // symbols.
  ASSERT_TRUE(CtphEditRate(small, large).has_value());
  EXPECT_DOUBLE_EQ(*CtphEditRate(small, large), 1.0 / 16.0);
  EXPECT_DOUBLE_EQ(*CtphEditRate(large, small), 1.0 / 16.0);
  // Same B: the better of B and 2B.
  Ctph same{.block_size = 48, .sig = "QQQQ", .sig2 = "abcdefgh"};
  EXPECT_DOUBLE_EQ(*CtphEditRate(small, same), 0.0);
  // Block sizes four times apart are not comparable.
  Ctph far{.block_size = 192, .sig = "abcdefgh", .sig2 = "x"};
  EXPECT_FALSE(CtphEditRate(small, far).has_value());
}

TEST(CtphEditRate, AdjacentBlockSizesOnRealGrowth) {
  // A text grown across a block-size boundary still matches its original
  // through 2B.
  std::string a = RandomText(12000, 5);
  Ctph ca = ComputeCtph(a);
  std::string b = a;
  std::uint32_t grown_to = ca.block_size;
  for (int i = 0; i < 20 && grown_to == ca.block_size; ++i) {
    b += RandomText(600, 100 + i);
    grown_to = ComputeCtph(b).block_size;
  }
  ASSERT_EQ(grown_to, ca.block_size * 2);
  const auto r = CtphEditRate(ca, ComputeCtph(b));
  ASSERT_TRUE(r.has_value());
  EXPECT_LT(*r, 0.35);
}

}  // namespace
}  // namespace mw::fingerprint
