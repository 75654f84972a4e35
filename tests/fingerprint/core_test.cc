// Tests for the per-pair comparison cores in fingerprint/core.h.
#include "fingerprint/core.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace mw::fingerprint {
namespace {

std::vector<BlockKey> Keys(const std::vector<std::uint64_t>& blocks) {
  std::vector<BlockKey> keys;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    keys.push_back({blocks[i], static_cast<std::uint32_t>(i)});
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

// The published formula, O(m·n): every occurrence paired with every occurrence,
// over m·n.
double PublishedSimilarity(const std::vector<std::uint64_t>& x,
                           const std::vector<std::uint64_t>& y) {
  const double big_m = static_cast<double>(std::max(x.size(), y.size()));
  double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = 0; j < y.size(); ++j) {
      if (x[i] == y[j])
        sum +=
            big_m - std::abs(static_cast<double>(i) - static_cast<double>(j));
    }
  }
  return sum / (static_cast<double>(x.size()) * static_cast<double>(y.size()));
}

// Our definition written as the O(m·n) double sum: σ_ij = 1 when x_i = y_j and
// x_i is the k-th occurrence of its value in X while y_j is the k-th in Y;
// divided by max(m, n)².
double OracleSimilarity(const std::vector<std::uint64_t>& x,
                        const std::vector<std::uint64_t>& y) {
  if (x.empty() || y.empty()) return 0;
  const auto rank = [](const std::vector<std::uint64_t>& v, std::size_t i) {
    return std::count(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i),
                      v[i]);
  };
  const double big_m = static_cast<double>(std::max(x.size(), y.size()));
  double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = 0; j < y.size(); ++j) {
      if (x[i] == y[j] && rank(x, i) == rank(y, j)) {
        sum +=
            big_m - std::abs(static_cast<double>(i) - static_cast<double>(j));
      }
    }
  }
  return sum / (big_m * big_m);
}

TEST(BlockSimilarity, ReversedListScoresHalf) {
  EXPECT_DOUBLE_EQ(BlockSimilarity(Keys({1, 2, 3, 4}), Keys({4, 3, 2, 1})),
                   0.5);
  EXPECT_DOUBLE_EQ(PublishedSimilarity({1, 2, 3, 4}, {4, 3, 2, 1}), 0.5);
}

TEST(BlockSimilarity, IdenticalListsScoreOne) {
  EXPECT_DOUBLE_EQ(BlockSimilarity(Keys({7}), Keys({7})), 1.0);
  EXPECT_DOUBLE_EQ(
      BlockSimilarity(Keys({5, 9, 2, 8, 1}), Keys({5, 9, 2, 8, 1})), 1.0);
  // Repeated blocks too: each occurrence pairs with its own copy.
  EXPECT_DOUBLE_EQ(
      BlockSimilarity(Keys({3, 3, 3, 4, 3}), Keys({3, 3, 3, 4, 3})), 1.0);
}

TEST(BlockSimilarity, DisjointOrEmptyScoresZero) {
  EXPECT_EQ(BlockSimilarity(Keys({1, 2}), Keys({3, 4})), 0.0);
  EXPECT_EQ(BlockSimilarity(Keys({}), Keys({3, 4})), 0.0);
  EXPECT_EQ(BlockSimilarity(Keys({}), Keys({})), 0.0);
}

TEST(BlockSimilarity, RepeatedBlocksStayWithinUnitInterval) {
  // The published formula exceeds 1 on repeated blocks; ours does not.
  const std::vector<std::uint64_t> x = {1, 1, 1, 1, 2};
  const std::vector<std::uint64_t> y = {1, 1, 1, 1, 1};
  EXPECT_GT(PublishedSimilarity(x, y), 1.0);
  const double s = BlockSimilarity(Keys(x), Keys(y));
  EXPECT_GE(s, 0.0);
  EXPECT_LE(s, 1.0);
  EXPECT_DOUBLE_EQ(s, OracleSimilarity(x, y));
  // A single block repeated against one copy of it.
  EXPECT_LE(BlockSimilarity(Keys({1, 1, 1, 1}), Keys({1})), 1.0);
}

TEST(BlockSimilarity, ShortMessageContainedInLongOneIsBoundedByCoverage) {
  // All 3 blocks of the short one appear at the start of the 10-block one: the
  // published score is above 0.8, ours at most 3/10.
  const std::vector<std::uint64_t> short_one = {1, 2, 3};
  const std::vector<std::uint64_t> long_one = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_GT(PublishedSimilarity(short_one, long_one), 0.8);
  EXPECT_LE(BlockSimilarity(Keys(short_one), Keys(long_one)), 0.3);
}

TEST(BlockSimilarity, MergeAgreesWithQuadraticFormulaOnRandomLists) {
  std::mt19937_64 rng(20261122);
  for (int round = 0; round < 2000; ++round) {
    const std::size_t m = 1 + rng() % 40;
    const std::size_t n = 1 + rng() % 40;
    // Small alphabets force repeated blocks; large ones give the no-repeat
    // case.
    const std::uint64_t alphabet = round % 2 ? 8 : 1000000;
    std::vector<std::uint64_t> x(m);
    std::vector<std::uint64_t> y(n);
    for (auto& v : x) v = rng() % alphabet;
    for (auto& v : y) v = rng() % alphabet;
    const double fast = BlockSimilarity(Keys(x), Keys(y));
    ASSERT_NEAR(fast, OracleSimilarity(x, y), 1e-12) << "round " << round;
    ASSERT_GE(fast, 0.0);
    ASSERT_LE(fast, 1.0);
    // Without repeats and with equal lengths it is exactly the published
    // formula.
    if (alphabet > 8 && m == n) {
      std::vector<std::uint64_t> sx = x;
      std::sort(sx.begin(), sx.end());
      std::vector<std::uint64_t> sy = y;
      std::sort(sy.begin(), sy.end());
      if (std::adjacent_find(sx.begin(), sx.end()) == sx.end() &&
          std::adjacent_find(sy.begin(), sy.end()) == sy.end()) {
        ASSERT_NEAR(fast, PublishedSimilarity(x, y), 1e-12);
      }
    }
  }
}

std::vector<BlockKey> WeightedKeys(const std::vector<std::uint64_t>& blocks,
                                   const std::vector<std::uint32_t>& lens) {
  std::vector<BlockKey> keys;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    keys.push_back({blocks[i], static_cast<std::uint32_t>(i), lens[i]});
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

TEST(WeightedBlockSimilarity, EqualLengthsGiveTheCountedScore) {
  EXPECT_DOUBLE_EQ(
      WeightedBlockSimilarity(Keys({1, 2, 3, 4}), Keys({4, 3, 2, 1})), 0.5);
  EXPECT_DOUBLE_EQ(WeightedBlockSimilarity(Keys({1, 2, 3}), Keys({1, 2, 3})),
                   1.0);
  EXPECT_EQ(WeightedBlockSimilarity(Keys({}), Keys({1})), 0.0);
}

TEST(WeightedBlockSimilarity, LongBlocksCarryTheScore) {
  // Sharing the two short blocks of a template, but not the long content block.
  const auto a = WeightedKeys({1, 2, 3}, {300, 10, 10});
  const auto b = WeightedKeys({9, 2, 3}, {300, 10, 10});
  EXPECT_NEAR(BlockSimilarity(a, b), 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(WeightedBlockSimilarity(a, b), 20.0 / 320.0, 1e-12);
  // Sharing the content block, not the short ones.
  const auto c = WeightedKeys({1, 7, 8}, {300, 10, 10});
  EXPECT_NEAR(WeightedBlockSimilarity(a, c), 300.0 / 320.0, 1e-12);
}

TEST(WeightedBlockSimilarity, StaysWithinUnitIntervalOnRandomLists) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 2000; ++round) {
    const std::size_t m = 1 + rng() % 30;
    const std::size_t n = 1 + rng() % 30;
    std::vector<std::uint64_t> x(m);
    std::vector<std::uint64_t> y(n);
    std::vector<std::uint32_t> lx(m);
    std::vector<std::uint32_t> ly(n);
    for (auto& v : x) v = rng() % 6;
    for (auto& v : y) v = rng() % 6;
    for (auto& v : lx) v = 1 + rng() % 200;
    for (auto& v : ly) v = 1 + rng() % 200;
    const double s =
        WeightedBlockSimilarity(WeightedKeys(x, lx), WeightedKeys(y, ly));
    ASSERT_GE(s, 0.0);
    ASSERT_LE(s, 1.0);
  }
  // Identical lists with any lengths score 1.
  const std::vector<std::uint32_t> lens = {5, 50, 500, 5};
  EXPECT_DOUBLE_EQ(WeightedBlockSimilarity(WeightedKeys({4, 4, 2, 9}, lens),
                                           WeightedKeys({4, 4, 2, 9}, lens)),
                   1.0);
}

// BlockContainment written as the O(m·n) double loop: x_i and y_j match when
// equal and x_i is the k-th occurrence of its value in X while y_j is the k-th
// in Y.
double OracleContainment(const std::vector<std::uint64_t>& x,
                         const std::vector<std::uint32_t>& lx,
                         const std::vector<std::uint64_t>& y,
                         const std::vector<std::uint32_t>& ly, double ratio) {
  if (x.empty() || y.empty()) return 0;
  double len_x = 0;
  double len_y = 0;
  for (const std::uint32_t l : lx) len_x += l;
  for (const std::uint32_t l : ly) len_y += l;
  if (std::max(len_x, len_y) > ratio * std::min(len_x, len_y)) return 0;
  const auto rank = [](const std::vector<std::uint64_t>& v, std::size_t i) {
    return std::count(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i),
                      v[i]);
  };
  double count = 0;
  double bytes = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = 0; j < y.size(); ++j) {
      if (x[i] == y[j] && rank(x, i) == rank(y, j)) {
        count += 1;
        bytes += std::min(lx[i], ly[j]);
      }
    }
  }
  return std::min(count / static_cast<double>(std::min(x.size(), y.size())),
                  bytes / std::min(len_x, len_y));
}

TEST(BlockContainment, IgnoresOrderAndPosition) {
  EXPECT_DOUBLE_EQ(BlockContainment(Keys({1, 2, 3, 4}), Keys({4, 3, 2, 1}), 2),
                   1.0);
  EXPECT_DOUBLE_EQ(BlockContainment(Keys({1, 2, 3, 4}), Keys({4, 9, 2, 1}), 2),
                   0.75);
  EXPECT_EQ(BlockContainment(Keys({}), Keys({1}), 2), 0.0);
  EXPECT_EQ(BlockContainment(Keys({1, 2}), Keys({3, 4}), 2), 0.0);
}

TEST(BlockContainment, LinesInsertedInManyPlacesKeepItWhole) {
  // Ten lines with two inserted in different places: every line of the
  // original is in the variant, which the positional similarity punishes.
  const auto a = Keys({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  const auto b = Keys({1, 2, 90, 3, 4, 5, 6, 91, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(BlockContainment(a, b, 1.3), 1.0);
  EXPECT_DOUBLE_EQ(BlockContainment(b, a, 1.3), 1.0);
  EXPECT_LT(BlockSimilarity(a, b), 0.8);
  // A short message inside a much longer one is not a copy of it.
  EXPECT_EQ(BlockContainment(Keys({1, 2, 3}), a, 1.3), 0.0);
  EXPECT_DOUBLE_EQ(BlockContainment(Keys({1, 2, 3}), a, 4), 1.0);
}

TEST(BlockContainment, NeedsBothTheCountAndTheBytes) {
  // A template of short lines shared, the long content block not.
  const auto a = WeightedKeys({1, 2, 3, 4}, {300, 10, 10, 10});
  const auto b = WeightedKeys({9, 2, 3, 4}, {300, 10, 10, 10});
  EXPECT_NEAR(BlockContainment(a, b, 2), 30.0 / 330.0, 1e-12);
  // One long block shared (a disclaimer), the short ones not.
  const auto c = WeightedKeys({1, 7, 8, 5}, {300, 10, 10, 10});
  EXPECT_NEAR(BlockContainment(a, c, 2), 0.25, 1e-12);
}

TEST(BlockContainment, MergeAgreesWithBruteForceOnRandomLists) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 3000; ++round) {
    const std::size_t m = 1 + rng() % 40;
    const std::size_t n = 1 + rng() % 40;
    // Small alphabets force repeated blocks, with lengths that differ between
    // occurrences; large ones give the no-repeat case.
    const std::uint64_t alphabet = round % 2 ? 6 : std::uint64_t{1} << 40;
    std::vector<std::uint64_t> x(m);
    std::vector<std::uint64_t> y(n);
    std::vector<std::uint32_t> lx(m);
    std::vector<std::uint32_t> ly(n);
    for (auto& v : x) v = rng() % alphabet;
    for (auto& v : y) v = rng() % alphabet;
    for (auto& v : lx) v = 1 + rng() % 200;
    for (auto& v : ly) v = 1 + rng() % 200;
    // Half the rounds without the length guard, half with a tight one.
    const double ratio = round % 4 < 2 ? 1e9 : 1.5;
    const double fast =
        BlockContainment(WeightedKeys(x, lx), WeightedKeys(y, ly), ratio);
    ASSERT_NEAR(fast, OracleContainment(x, lx, y, ly, ratio), 1e-12)
        << "round " << round;
    ASSERT_GE(fast, 0.0);
    ASSERT_LE(fast, 1.0);
    // Symmetric, and without repeats order never matters.
    ASSERT_NEAR(
        BlockContainment(WeightedKeys(y, ly), WeightedKeys(x, lx), ratio), fast,
        1e-12);
    if (alphabet > 6) {
      const std::vector<std::uint64_t> ry(y.rbegin(), y.rend());
      const std::vector<std::uint32_t> rly(ly.rbegin(), ly.rend());
      ASSERT_NEAR(
          BlockContainment(WeightedKeys(x, lx), WeightedKeys(ry, rly), ratio),
          fast, 1e-12);
    }
  }
}

// Plain O(|a|·|b|) Levenshtein DP: the oracle for Myers.
std::uint32_t DpDistance(const std::string& a, const std::string& b) {
  std::vector<std::uint32_t> prev(b.size() + 1);
  std::vector<std::uint32_t> cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    prev[j] = static_cast<std::uint32_t>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<std::uint32_t>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1,
                         prev[j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

TEST(MyersDistance, KnownValues) {
  EXPECT_EQ(MyersDistance("", ""), 0u);
  EXPECT_EQ(MyersDistance("", "abc"), 3u);
  EXPECT_EQ(MyersDistance("abc", ""), 3u);
  EXPECT_EQ(MyersDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(MyersDistance("flaw", "lawn"), 2u);
  EXPECT_EQ(MyersDistance("abc", "abc"), 0u);
}

TEST(MyersDistance, AgreesWithDpOnRandomStrings) {
  std::mt19937_64 rng(42);
  static constexpr char kBase64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int round = 0; round < 5000; ++round) {
    // Alternate small alphabets (many matches) and the 64-symbol CTPH alphabet.
    const std::size_t alphabet = round % 3 == 0 ? 64 : 2 + rng() % 6;
    std::string a(rng() % 65, 'x');
    std::string b(rng() % 100, 'x');
    for (char& c : a) c = kBase64[rng() % alphabet];
    for (char& c : b) c = kBase64[rng() % alphabet];
    // Half the time make b a mutation of a, the case CTPH cares about.
    if (round % 2 && !a.empty()) {
      b = a;
      for (int e = static_cast<int>(rng() % 6); e > 0 && !b.empty(); --e) {
        b[rng() % b.size()] = kBase64[rng() % 64];
      }
    }
    ASSERT_EQ(MyersDistance(a, b), DpDistance(a, b)) << a << " / " << b;
  }
}

TEST(MyersDistances, BatchAgreesWithSingleAndDp) {
  std::mt19937_64 rng(8);
  for (int round = 0; round < 300; ++round) {
    std::string pattern(rng() % 65, 'x');
    for (char& c : pattern) c = static_cast<char>('a' + rng() % 5);
    std::vector<std::string> texts(rng() % 11);
    for (auto& t : texts) {
      t.assign(rng() % 70, 'x');
      for (char& c : t) c = static_cast<char>('a' + rng() % 5);
    }
    std::vector<std::string_view> views(texts.begin(), texts.end());
    std::vector<std::uint32_t> out(texts.size(), 12345);
    MyersDistances(pattern, views, out);
    for (std::size_t k = 0; k < texts.size(); ++k) {
      ASSERT_EQ(out[k], DpDistance(pattern, texts[k])) << round << "/" << k;
      ASSERT_EQ(out[k], MyersDistance(pattern, texts[k]));
    }
  }
}

// Both implementations behind MyersDistances, whichever the CPU picks: any
// byte values (NUL and >= 0x80 included), patterns of 0..64 symbols, texts of
// 0..150 (longer than 64 columns), and every batch size from 0 to 40 in turn:
// the AVX2 path takes twelve texts at a time in three chains of four lanes and
// ends with a group of one, two or three chains, so every remainder modulo 12
// (and 4, the portable path's width) comes up, with empty texts among them.
TEST(MyersDistances, BothPathsAgreeWithDp) {
  std::mt19937_64 rng(9);
  const bool have_avx2 = [] {
    std::vector<std::uint32_t> out(1);
    const std::string_view t = "a";
    return internal::MyersDistancesAvx2("a", std::span(&t, 1), out);
  }();
  if (!have_avx2) GTEST_LOG_(INFO) << "no AVX2 here: portable path only";
  for (int round = 0; round < 2000; ++round) {
    // Small alphabets make many matches; the full byte range makes few.
    const unsigned alphabet = round % 4 == 0 ? 256 : 2 + rng() % 6;
    const unsigned offset = round % 4 == 1 ? 0 : (round % 4 == 2 ? 250 : 97);
    const auto symbol = [&] {
      return static_cast<char>((offset + rng() % alphabet) % 256);
    };
    std::string pattern(round % 10 == 0 ? 64 : rng() % 65, 'x');
    for (char& c : pattern) c = symbol();
    std::vector<std::string> texts(static_cast<std::size_t>(round % 41));
    for (auto& t : texts) {
      t.assign(rng() % 4 == 0 ? rng() % 151 : rng() % 65, 'x');
      for (char& c : t) c = symbol();
      if (rng() % 2 && !pattern.empty()) {  // a mutation of the pattern
        t = pattern;
        for (int e = static_cast<int>(rng() % 6); e > 0 && !t.empty(); --e) {
          t[rng() % t.size()] = symbol();
        }
      }
    }
    const std::vector<std::string_view> views(texts.begin(), texts.end());
    std::vector<std::uint32_t> portable(texts.size(), 12345);
    std::vector<std::uint32_t> avx2(texts.size(), 12345);
    internal::MyersDistancesPortable(pattern, views, portable);
    if (have_avx2) {
      ASSERT_TRUE(internal::MyersDistancesAvx2(pattern, views, avx2));
    }
    for (std::size_t k = 0; k < texts.size(); ++k) {
      const std::uint32_t want = DpDistance(pattern, texts[k]);
      ASSERT_EQ(portable[k], want) << round << "/" << k;
      if (have_avx2) {
        ASSERT_EQ(avx2[k], want) << round << "/" << k;
      }
    }
  }
}

// Both implementations behind MyersDistance against the DP: every pattern
// length 0..64 against texts of 0..150 symbols (the AVX-512 path takes texts
// of 1..64 and splits them in two halves, so even and odd lengths and the
// one-symbol text all come up), over two to four symbols (many ties and long
// matches), the 64 CTPH symbols, and all byte values including 0 and 0xFF.
TEST(MyersDistance, BothPathsAgreeWithDpForEveryLength) {
  std::mt19937_64 rng(10);
  static constexpr char kBase64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::uint32_t unused;
  const bool have_avx512 = internal::MyersDistanceAvx512("a", "a", &unused);
  if (!have_avx512) GTEST_LOG_(INFO) << "no AVX-512 here: scalar path only";
  for (int alphabet_kind = 0; alphabet_kind < 4; ++alphabet_kind) {
    const auto symbol = [&]() -> char {
      switch (alphabet_kind) {
        case 0:
          return static_cast<char>('a' + rng() % 2);
        case 1:
          return static_cast<char>('a' + rng() % 4);
        case 2:
          return kBase64[rng() % 64];
        default:
          return static_cast<char>(rng() % 256);
      }
    };
    for (std::size_t m = 0; m <= 64; ++m) {
      for (std::size_t n = 0; n <= 150; ++n) {
        std::string a(m, 'x');
        std::string b(n, 'x');
        for (char& c : a) c = symbol();
        for (char& c : b) c = symbol();
        // Every third pair a mutation of the pattern: near-duplicates.
        if (n % 3 == 0 && m > 0) {
          b = a;
          b.resize(n, symbol());
          for (int e = static_cast<int>(rng() % 5); e > 0 && !b.empty(); --e) {
            b[rng() % b.size()] = symbol();
          }
        }
        const std::uint32_t want = DpDistance(a, b);
        ASSERT_EQ(internal::MyersDistanceScalar(a, b), want)
            << alphabet_kind << " " << m << "/" << n;
        ASSERT_EQ(MyersDistance(a, b), want)
            << alphabet_kind << " " << m << "/" << n;
        std::uint32_t got = 12345;
        if (internal::MyersDistanceAvx512(a, b, &got)) {
          ASSERT_TRUE(have_avx512);
          ASSERT_EQ(got, want) << alphabet_kind << " " << m << "/" << n;
        } else {
          ASSERT_EQ(got, 12345u);  // writes nothing when it declines
          ASSERT_TRUE(!have_avx512 || m == 0 || n == 0 || n > 64)
              << m << "/" << n;
        }
      }
    }
  }
}

// The AVX-512 and scalar paths called directly on many random pairs of
// 64-symbol signatures, related and not.
TEST(MyersDistance, Avx512AgreesWithScalar) {
  std::uint32_t unused;
  if (!internal::MyersDistanceAvx512("a", "a", &unused)) {
    GTEST_SKIP() << "no AVX-512 on this CPU";
  }
  std::mt19937_64 rng(11);
  static constexpr char kBase64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (int round = 0; round < 20000; ++round) {
    std::string a(64 - rng() % 8, 'x');
    std::string b(64 - rng() % 8, 'x');
    for (char& c : a) c = kBase64[rng() % 64];
    for (char& c : b) c = kBase64[rng() % 64];
    if (round % 2) {
      b = a;
      for (int e = static_cast<int>(rng() % 10); e > 0; --e) {
        const std::size_t at = rng() % b.size();
        switch (rng() % 3) {
          case 0:
            b[at] = kBase64[rng() % 64];
            break;
          case 1:
            if (b.size() > 1) b.erase(at, 1);
            break;
          default:
            if (b.size() < 64) b.insert(at, 1, kBase64[rng() % 64]);
        }
      }
    }
    std::uint32_t got = 0;
    ASSERT_TRUE(internal::MyersDistanceAvx512(a, b, &got));
    ASSERT_EQ(got, internal::MyersDistanceScalar(a, b)) << a << " / " << b;
  }
}

TEST(MyersDistance, EdgeCases) {
  const std::string a64(64, 'a');
  std::string all_bytes;
  for (int c = 0; c < 256; ++c) all_bytes += static_cast<char>(c);
  const std::string low64 = all_bytes.substr(0, 64);
  const std::string high64 = all_bytes.substr(192, 64);
  struct Case {
    std::string a;
    std::string b;
  };
  const std::vector<Case> cases = {
      {"a", "a"},
      {"a", "b"},
      {"a", "ab"},
      {"ab", "a"},
      {"abc", "c"},
      {std::string(1, '\0'), std::string(1, '\xff')},
      {std::string(1, '\xff'), std::string(3, '\xff')},
      {a64, a64},
      {a64, std::string(64, 'b')},
      {a64, std::string(63, 'a')},
      {a64, "a"},
      {"a", a64},
      {low64, high64},  // disjoint alphabets
      {low64, low64},
      {high64, std::string(high64.rbegin(), high64.rend())},
      {"abcdefgh", std::string(150, 'x')},  // text much longer than pattern
      {"abcdefgh", std::string(60, 'x') + "abcdefgh"},
      {a64, std::string(150, 'a')},
  };
  for (const Case& c : cases) {
    const std::uint32_t want = DpDistance(c.a, c.b);
    EXPECT_EQ(MyersDistance(c.a, c.b), want) << c.a.size() << "/" << c.b.size();
    EXPECT_EQ(internal::MyersDistanceScalar(c.a, c.b), want);
    std::uint32_t got = 0;
    if (internal::MyersDistanceAvx512(c.a, c.b, &got)) {
      EXPECT_EQ(got, want);
    }
  }
}

TEST(MyersDistance, FullWordPattern) {
  const std::string a(64, 'a');
  std::string b = a;
  b[0] = 'b';
  b[63] = 'c';
  EXPECT_EQ(MyersDistance(a, b), 2u);
  EXPECT_EQ(MyersDistance(a, a + "zz"), 2u);
  EXPECT_DOUBLE_EQ(EditRate(a, b), 2.0 / 128.0);
}

TEST(Hamming, CountsDifferingBits) {
  EXPECT_EQ(Hamming(0, 0), 0u);
  EXPECT_EQ(Hamming(0, ~std::uint64_t{0}), 64u);
  EXPECT_EQ(Hamming(0b1011, 0b0001), 2u);
}

}  // namespace
}  // namespace mw::fingerprint
