// Tests for CTPH signatures (fingerprint/src/ctph.cc).
#include "fingerprint/ctph.h"

#include <fuzzy.h>
#include <gtest/gtest.h>

#include <iostream>
#include <random>
#include <string>
#include <vector>

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

// ComputeCtph runs only the block sizes it needs; libfuzzy runs them all.
// Both must give the same signature for every input: lengths around every
// block-size step, inputs whose guessed block size is too large (the retry
// downwards), inputs where no or few cuts happen (zeros, one repeated byte,
// short periods), and random bytes.
void ExpectSameAsLibfuzzy(std::string_view bytes) {
  const Ctph ours = ComputeCtph(bytes);
  const Ctph ref = TEST_ComputeCtphLibfuzzy(bytes);
  ASSERT_EQ(ToString(ours), ToString(ref)) << "length " << bytes.size();
}

TEST(ComputeCtph, SameAsLibfuzzyOnShortInputs) {
  std::mt19937_64 rng(11);
  for (std::size_t n = 0; n <= 600; ++n) {
    std::string random(n, '\0');
    for (char& c : random) c = static_cast<char>(rng());
    ExpectSameAsLibfuzzy(random);
    ExpectSameAsLibfuzzy(std::string(n, 'a'));
    ExpectSameAsLibfuzzy(std::string(n, '\0'));
    ExpectSameAsLibfuzzy(RandomText(n, n));
  }
}

TEST(ComputeCtph, SameAsLibfuzzyAroundBlockSizeSteps) {
  std::mt19937_64 rng(12);
  for (std::uint64_t b = 3; b * 64 <= (std::uint64_t{1} << 22); b *= 2) {
    for (const std::int64_t delta : {-2, -1, 0, 1, 2}) {
      const auto n =
          static_cast<std::size_t>(static_cast<std::int64_t>(b * 64) + delta);
      ExpectSameAsLibfuzzy(RandomText(n, rng()));
      std::string random(n, '\0');
      for (char& c : random) c = static_cast<char>(rng());
      ExpectSameAsLibfuzzy(random);
      // Few distinct bytes: long runs without a cut at the guessed size.
      std::string skewed(n, 'x');
      for (char& c : skewed) c = (rng() % 64 == 0) ? 'y' : 'x';
      ExpectSameAsLibfuzzy(skewed);
    }
  }
}

TEST(ComputeCtph, SameAsLibfuzzyOnRandomLengthsAndPatterns) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t n = rng() % (trial < 2500 ? 20000 : 300000);
    std::string s;
    switch (trial % 5) {
      case 0:
        s = RandomText(n, rng());
        break;
      case 1: {  // short repeating period
        const std::size_t period = 1 + rng() % 12;
        std::string unit(period, '\0');
        for (char& c : unit) c = static_cast<char>(rng());
        while (s.size() < n) s += unit;
        s.resize(n);
        break;
      }
      case 2:  // two symbols, rare changes
        s.assign(n, 'a');
        for (char& c : s) {
          if (rng() % 200 == 0) c = 'b';
        }
        break;
      default:
        s.resize(n);
        for (char& c : s) c = static_cast<char>(rng() % (trial % 2 ? 4 : 256));
        break;
    }
    ExpectSameAsLibfuzzy(s);
  }
}

TEST(ComputeCtph, SameAsLibfuzzyOnLargeInputs) {
  std::mt19937_64 rng(14);
  for (const std::size_t n : {1u << 20, 3u << 20, 9u << 20}) {
    ExpectSameAsLibfuzzy(RandomText(n, rng()));
    ExpectSameAsLibfuzzy(std::string(n, 'z'));
  }
}

// spamsum's rolling hash as libfuzzy writes it: a ring of the last 7 bytes
// and three running sums.
struct ReferenceRoll {
  std::uint8_t window[7] = {};
  std::uint32_t h1 = 0, h2 = 0, h3 = 0, n = 0;
  std::uint32_t Update(std::uint8_t c) {
    h2 -= h1;
    h2 += 7 * std::uint32_t{c};
    h1 += c;
    h1 -= window[n % 7];
    window[n % 7] = c;
    ++n;
    h3 <<= 5;
    h3 ^= c;
    return h1 + h2 + h3;
  }
};

// Random bytes, a third of them 0x00 or 0xFF (the extremes of each term).
std::string RandomBytes(std::size_t n, std::mt19937_64& rng) {
  std::string s(n, '\0');
  for (char& c : s) {
    const std::uint64_t r = rng();
    c = static_cast<char>(r % 6 == 0 ? 0x00 : r % 6 == 1 ? 0xFF : r >> 8);
  }
  return s;
}

TEST(CtphInternal, ClosedFormWindowHashEqualsTheRecurrence) {
  std::mt19937_64 rng(21);
  for (const std::size_t n : {1u, 2u, 6u, 7u, 8u, 9u, 100u, 5000u}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::string s = RandomBytes(n, rng);
      if (trial == 0) s.assign(n, '\xff');
      if (trial == 1) s.assign(n, '\0');
      ReferenceRoll roll;
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(internal::CtphWindowHash(s, i),
                  roll.Update(static_cast<std::uint8_t>(s[i])))
            << "n " << n << " i " << i;
      }
    }
  }
}

// Every cut at `level` or above, by the definition.
std::vector<internal::CtphCut> ReferenceCuts(std::string_view s,
                                             unsigned level) {
  std::vector<internal::CtphCut> out;
  ReferenceRoll roll;
  const std::uint64_t b = std::uint64_t{3} << level;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::uint32_t horg = roll.Update(static_cast<std::uint8_t>(s[i])) + 1;
    if (horg != 0 && horg % b == 0) out.push_back({i, horg});
  }
  return out;
}

void ExpectCutsAgree(std::string_view s, unsigned level) {
  const std::vector<internal::CtphCut> ref = ReferenceCuts(s, level);
  ASSERT_EQ(internal::CtphCutsPortable(s, level), ref)
      << "length " << s.size() << " level " << level;
  const auto avx2 = internal::CtphCutsAvx2(s, level);
  if (avx2) {
    ASSERT_EQ(*avx2, ref) << "length " << s.size() << " level " << level;
  }
}

TEST(CtphInternal, CutFindersAgreeWithTheDefinition) {
  if (!internal::CtphCutsAvx2("", 0)) {
    std::cout << "no AVX2 on this CPU: the portable finder only\n";
  }
  std::mt19937_64 rng(22);
  for (std::size_t n = 0; n <= 300; ++n) {
    const std::string s = RandomBytes(n, rng);
    const std::string text = RandomText(n, n);
    for (const unsigned level : {0u, 1u, 2u, 4u, 7u}) {
      ExpectCutsAgree(s, level);
      ExpectCutsAgree(text, level);
    }
  }
  // Long inputs: several of the AVX2 path's 1024-position blocks, levels up
  // to where almost nothing cuts, and constant runs (a hit in every lane, or
  // in none).
  for (const std::size_t n : {1023u, 1024u, 1031u, 4099u, 100000u}) {
    const std::string s = RandomBytes(n, rng);
    for (const unsigned level : {0u, 3u, 9u, 20u, 31u})
      ExpectCutsAgree(s, level);
    for (const char c : {'\0', '\xff', 'a', 'z'}) {
      for (const unsigned level : {0u, 1u, 5u}) {
        ExpectCutsAgree(std::string(n, c), level);
      }
    }
  }
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
