// Tests for SimHash and its bucket keys (fingerprint/src/simhash.cc).
#include "fingerprint/simhash.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "fingerprint/core.h"
#include "reference_simhash.h"

namespace mw::fingerprint {
namespace {

using ::testing::ElementsAre;

std::string RandomWords(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t len = 2 + rng() % 8;
    for (std::size_t k = 0; k < len; ++k)
      out.push_back(static_cast<char>('a' + rng() % 26));
    out.push_back(i % 15 == 14 ? '\n' : ' ');
  }
  return out;
}

TEST(Words, SplitsOnPunctuationAndUnspacedScripts) {
  EXPECT_THAT(Words("hello, world! it's 42."),
              ElementsAre("hello", "world", "it", "s", "42"));
  EXPECT_THAT(Words("我喜欢 cats"), ElementsAre("我", "喜", "欢", "cats"));
  EXPECT_THAT(Words("größe café"), ElementsAre("größe", "café"));
  EXPECT_TRUE(Words(" -- !! ").empty());
}

TEST(ComputeWordHashes, SameAsThePlainDefinition) {
  // Few distinct words so that shingles repeat (the ln(count) votes), words
  // in other scripts (CJK characters are words of their own), punctuation,
  // invalid bytes, and texts of 0, 1, 2 and 3 words.
  static constexpr std::string_view kWords[] = {
      "the", "a",  "offer", "42",  "größe", "café", "我",  "喜欢",
      "ไทย", "--", "!!",    "x1y", "\xFF",  "é",    "ÀÉÎ", "日本語"};
  static constexpr std::string_view kGaps[] = {" ", "\n", ", ",   ". ",
                                               "",  "\t", " -- ", "\n\n"};
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text;
    const std::size_t words = trial < 40 ? trial % 5 : rng() % 400;
    const std::size_t vocab = 1 + rng() % std::size(kWords);
    for (std::size_t i = 0; i < words; ++i) {
      text += kWords[rng() % vocab];
      text += kGaps[rng() % std::size(kGaps)];
    }
    const WordHashes ours = ComputeWordHashes(text);
    const WordHashes ref = testing::ReferenceWordHashes(text);
    ASSERT_EQ(ours.simhash, ref.simhash) << text;
    ASSERT_EQ(ours.word_bag, ref.word_bag) << text;
    // The sort-based fallback (radix sort from 256 shingles on).
    ASSERT_EQ(TEST_ComputeWordHashesSorted(text).simhash, ref.simhash) << text;
    ASSERT_EQ(ComputeSimHash(text), ours.simhash);
    ASSERT_EQ(ComputeWordBag(text), ours.word_bag);
  }
}

TEST(ComputeWordHashes, WordsAcrossTheSixtyFourByteBlocks) {
  // ASCII text goes 64 bytes at a time: words that start, end or run through
  // a block's edge, words longer than a block, runs of separators across
  // one, and a non-ASCII character at every offset (its block takes the
  // per-character path, the next ones the fast path again).
  for (std::size_t len = 1; len <= 150; len += (len < 70 ? 1 : 7)) {
    for (std::size_t lead = 0; lead < 64; lead += 3) {
      for (const std::string_view gap : {" ", "  ,;  ", "\n"}) {
        std::string text(lead, '.');
        for (int w = 0; text.size() < 400; ++w) {
          text.append(len, static_cast<char>('a' + w % 26));
          text += gap;
        }
        const auto check = [](const std::string& t) {
          const WordHashes ours = ComputeWordHashes(t);
          const WordHashes ref = testing::ReferenceWordHashes(t);
          ASSERT_EQ(ours.simhash, ref.simhash) << t;
          ASSERT_EQ(ours.word_bag, ref.word_bag) << t;
        };
        check(text);
        std::string mixed = text;
        mixed.replace(lead + len / 2, 1, "\xC3\xA9");  // é inside a word
        check(mixed);
        mixed.replace(lead + 130, 1, "\xE6\x97\xA5");  // 日: a word of its own
        check(mixed);
      }
    }
  }
}

TEST(ComputeWordHashes, EveryBitCounterCountsEveryBit) {
  // Around the byte counters' flush every 255 hashes, and the bit patterns
  // that fill or empty every counter.
  std::mt19937_64 rng(11);
  for (const std::size_t n : {0, 1, 2, 254, 255, 256, 509, 510, 511, 1000}) {
    for (int pattern = 0; pattern < 3; ++pattern) {
      std::vector<std::uint64_t> hashes(n);
      for (std::uint64_t& h : hashes) {
        h = pattern == 0 ? rng() : pattern == 1 ? ~std::uint64_t{0} : 0;
      }
      std::array<std::uint32_t, 64> expected{};
      for (const std::uint64_t h : hashes) {
        for (int b = 0; b < 64; ++b) expected[b] += (h >> b) & 1;
      }
      const auto counts = TEST_CountBits(hashes);
      ASSERT_FALSE(counts.empty());
      for (std::size_t k = 0; k < counts.size(); ++k)
        ASSERT_EQ(counts[k], expected) << "counter " << k << ", n = " << n;
    }
  }
}

TEST(ComputeSimHash, DeterministicAndZeroForNoWords) {
  EXPECT_EQ(ComputeSimHash(""), 0u);
  EXPECT_EQ(ComputeSimHash("... --"), 0u);
  const std::string t = RandomWords(300, 1);
  EXPECT_EQ(ComputeSimHash(t), ComputeSimHash(t));
  EXPECT_NE(ComputeSimHash("one"), 0u);
}

TEST(ComputeSimHash, IgnoresPunctuationAndSpacing) {
  EXPECT_EQ(ComputeSimHash("the quick brown fox jumps"),
            ComputeSimHash("the  quick, brown\nfox -- jumps!"));
}

TEST(ComputeSimHash, NearTextsAreCloseDistinctTextsAreFar) {
  const std::string a = RandomWords(400, 2);
  std::string b = a;
  b.replace(b.size() / 2, 0, " an extra phrase here ");
  EXPECT_LE(Hamming(ComputeSimHash(a), ComputeSimHash(b)), 6u);
  // Unrelated texts: about 32 bits apart; never within a few bits over many
  // seeds.
  for (std::uint64_t s = 10; s < 40; ++s) {
    EXPECT_GT(Hamming(ComputeSimHash(RandomWords(200, s)),
                      ComputeSimHash(RandomWords(200, s + 100))),
              10u);
  }
}

TEST(ComputeWordBag, SameWordsInAnyOrder) {
  const WordBag a = ComputeWordBag("the cat sat on the mat. a dog barked.");
  EXPECT_EQ(a.words, 9u);
  EXPECT_NE(a.hash, 0u);
  // Shuffled sentences, wrapped again, other punctuation: the same bag.
  EXPECT_EQ(ComputeWordBag("a dog barked!\nthe cat sat on\nthe mat"), a);
  // One word changed, dropped or repeated: another bag.
  EXPECT_NE(ComputeWordBag("the cat sat on the rug. a dog barked."), a);
  EXPECT_NE(ComputeWordBag("the cat sat on mat. a dog barked."), a);
  EXPECT_NE(ComputeWordBag("the cat sat on the the mat. a dog barked."), a);
  // Word boundaries count: "the cat" is not "thecat".
  EXPECT_NE(ComputeWordBag("thecat"), ComputeWordBag("the cat"));
  EXPECT_EQ(ComputeWordBag("").words, 0u);
  EXPECT_EQ(ComputeWordBag(" -- !!").hash, 0u);
}

TEST(ComputeWordBag, AgreesWithTheSortedWordList) {
  // Random texts over a small vocabulary: equal bags exactly when the sorted
  // word lists are equal.
  std::mt19937_64 rng(3);
  static constexpr std::string_view kVocab[] = {"a", "b", "cc", "dd", "e"};
  for (int round = 0; round < 2000; ++round) {
    std::string x;
    std::string y;
    for (std::size_t k = 0, n = rng() % 6; k < n; ++k) {
      x += std::string(kVocab[rng() % 5]) + " ";
    }
    for (std::size_t k = 0, n = rng() % 6; k < n; ++k) {
      y += std::string(kVocab[rng() % 5]) + ". ";
    }
    std::vector<std::string_view> wx = Words(x);
    std::vector<std::string_view> wy = Words(y);
    std::sort(wx.begin(), wx.end());
    std::sort(wy.begin(), wy.end());
    ASSERT_EQ(ComputeWordBag(x) == ComputeWordBag(y), wx == wy)
        << x << " | " << y;
  }
}

TEST(SimHashKeys, BandsCoverEveryBitOnce) {
  for (std::uint32_t k = 1; k < 20; ++k) {
    const std::vector<std::uint64_t> ones = SimHashKeys(~std::uint64_t{0}, k);
    ASSERT_EQ(ones.size(), k + 1);
    int bits = 0;
    for (std::size_t b = 0; b < ones.size(); ++b) {
      EXPECT_EQ(ones[b] >> 32, b);
      bits += std::popcount(ones[b] & 0xffffffffu);
    }
    EXPECT_EQ(bits, 64) << "k=" << k;
  }
  EXPECT_THAT(SimHashKeys(0x1234, 0), ElementsAre(0x1234u));
}

// The pigeonhole property the store relies on: every pair within distance k
// shares a key.
TEST(SimHashKeys, EveryPairWithinKSharesAKey) {
  std::mt19937_64 rng(7);
  for (std::uint32_t k = 0; k <= 8; ++k) {
    for (int round = 0; round < 3000; ++round) {
      const std::uint64_t a = rng();
      std::uint64_t b = a;
      const std::uint32_t flips = static_cast<std::uint32_t>(rng() % (k + 1));
      std::set<int> positions;
      // Adversarial half: flip one bit in each of `flips` different bands'
      // edges.
      while (positions.size() < flips)
        positions.insert(static_cast<int>(rng() % 64));
      for (const int p : positions) b ^= std::uint64_t{1} << p;
      ASSERT_LE(Hamming(a, b), k);
      const auto ka = SimHashKeys(a, k);
      const auto kb = SimHashKeys(b, k);
      bool shared = false;
      for (std::size_t i = 0; i < ka.size(); ++i)
        shared = shared || ka[i] == kb[i];
      ASSERT_TRUE(shared) << "k=" << k << " a=" << a << " b=" << b;
    }
  }
}

TEST(SimHashKeys, ExhaustiveForSmallK) {
  // Every pattern of up to 2 flipped bits out of 64, for k = 2.
  const std::uint64_t a = 0x0123456789abcdefULL;
  const auto ka = SimHashKeys(a, 2);
  for (int p = 0; p < 64; ++p) {
    for (int q = p; q < 64; ++q) {
      const std::uint64_t b =
          a ^ (std::uint64_t{1} << p) ^ (std::uint64_t{1} << q);
      const auto kb = SimHashKeys(b, 2);
      bool shared = false;
      for (std::size_t i = 0; i < ka.size(); ++i)
        shared = shared || ka[i] == kb[i];
      ASSERT_TRUE(shared) << p << "," << q;
    }
  }
  // And k + 1 flips, one per band, can defeat it: the bound is tight.
  const auto keys = SimHashKeys(0, 2);
  std::uint64_t b = 0;
  b |= 1;           // band 0 (bits 0..21)
  b |= 1ULL << 22;  // band 1 (bits 22..42)
  b |= 1ULL << 43;  // band 2 (bits 43..63)
  const auto kb = SimHashKeys(b, 2);
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_NE(keys[i], kb[i]);
}

}  // namespace
}  // namespace mw::fingerprint
