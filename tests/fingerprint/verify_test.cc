// Tests for text verification (fingerprint/src/verify.cc): blocked Myers
// against a plain DP, and the banded bounded distance against the full one on
// random texts and on texts of the dev corpus (skipped when it is absent).
#include "fingerprint/verify.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace mw::fingerprint {
namespace {

std::uint64_t DpDistance(const std::string& a, const std::string& b) {
  std::vector<std::uint64_t> prev(b.size() + 1);
  std::vector<std::uint64_t> cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1,
                         prev[j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

TEST(TextEditDistance, KnownValues) {
  EXPECT_EQ(TextEditDistance("", ""), 0u);
  EXPECT_EQ(TextEditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(TextEditDistance("", "abcd"), 4u);
  EXPECT_DOUBLE_EQ(TextEditRate("abc", "abc"), 0.0);
  EXPECT_DOUBLE_EQ(TextEditRate("", ""), 0.0);
  EXPECT_DOUBLE_EQ(TextEditRate("ab", "cd"), 0.5);
}

TEST(TextEditDistance, AgreesWithDpAcrossWordBoundaries) {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 400; ++round) {
    const std::size_t alphabet = 2 + rng() % 20;
    std::string a(rng() % 300, 'x');
    for (char& c : a) c = static_cast<char>('a' + rng() % alphabet);
    std::string b;
    if (round % 2) {
      b = a;  // a mutation of a
      for (int e = static_cast<int>(rng() % 20); e > 0; --e) {
        const std::size_t at = b.empty() ? 0 : rng() % b.size();
        switch (rng() % 3) {
          case 0:
            b.insert(at, 1, static_cast<char>('a' + rng() % alphabet));
            break;
          case 1:
            if (!b.empty()) b.erase(at, 1);
            break;
          default:
            if (!b.empty()) b[at] = static_cast<char>('a' + rng() % alphabet);
        }
      }
    } else {
      b.assign(rng() % 300, 'x');
      for (char& c : b) c = static_cast<char>('a' + rng() % alphabet);
    }
    ASSERT_EQ(TextEditDistance(a, b), DpDistance(a, b))
        << a.size() << " " << b.size();
    ASSERT_EQ(TextEditDistance(b, a), DpDistance(a, b));
  }
}

// What TextEditDistanceWithin must give: the distance when it is at most k.
std::optional<std::uint64_t> Within(std::uint64_t distance, std::uint64_t k) {
  return distance <= k ? std::optional<std::uint64_t>(distance) : std::nullopt;
}

// `text` with `edits` random single-byte insertions, deletions and
// substitutions, some of them in runs (a changed word rather than a byte).
std::string Mutate(std::string text, int edits, std::size_t alphabet,
                   std::mt19937_64& rng) {
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = text.empty() ? 0 : rng() % text.size();
    const std::size_t run = rng() % 4 == 0 ? 1 + rng() % 8 : 1;
    for (std::size_t r = 0; r < run; ++r) {
      const std::size_t pos = std::min(at + r, text.size());
      switch (rng() % 3) {
        case 0:
          text.insert(pos, 1, static_cast<char>('a' + rng() % alphabet));
          break;
        case 1:
          if (pos < text.size()) text.erase(pos, 1);
          break;
        default:
          if (pos < text.size())
            text[pos] = static_cast<char>('a' + rng() % alphabet);
      }
    }
  }
  return text;
}

// Every k around the true distance (and a few far from it), both orders.
void CheckAllBounds(const std::string& a, const std::string& b) {
  const std::uint64_t d = TextEditDistance(a, b);
  std::vector<std::uint64_t> ks = {0,      1,         d / 2,
                                   d + 64, d * 2 + 1, a.size() + b.size()};
  for (std::uint64_t k = d > 3 ? d - 3 : 0; k <= d + 3; ++k) ks.push_back(k);
  for (const std::uint64_t k : ks) {
    ASSERT_EQ(TextEditDistanceWithin(a, b, k), Within(d, k))
        << "|a| " << a.size() << " |b| " << b.size() << " d " << d << " k "
        << k;
    ASSERT_EQ(TextEditDistanceWithin(b, a, k), Within(d, k));
  }
}

TEST(TextEditDistanceWithin, KnownValues) {
  EXPECT_EQ(TextEditDistanceWithin("kitten", "sitting", 3), 3u);
  EXPECT_EQ(TextEditDistanceWithin("kitten", "sitting", 2), std::nullopt);
  EXPECT_EQ(TextEditDistanceWithin("", "", 0), 0u);
  EXPECT_EQ(TextEditDistanceWithin("", "abcd", 4), 4u);
  EXPECT_EQ(TextEditDistanceWithin("", "abcd", 3), std::nullopt);
  EXPECT_EQ(TextEditDistanceWithin("abc", "abc", 0), 0u);
  EXPECT_EQ(TextEditDistanceWithin("ab", "cd", ~std::uint64_t{0}), 2u);
}

TEST(TextEditDistanceWithin, AgreesWithTheFullDistanceOnRandomTexts) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 600; ++round) {
    const std::size_t alphabet = 2 + rng() % 26;
    // Lengths across several words, and past them for some.
    std::string a(rng() % (round % 10 == 0 ? 2000 : 400), 'x');
    for (char& c : a) c = static_cast<char>('a' + rng() % alphabet);
    std::string b;
    if (round % 3 != 0) {
      b = Mutate(a, static_cast<int>(rng() % (1 + a.size() / 4 + 3)), alphabet,
                 rng);
    } else {
      b.assign(rng() % 400, 'x');
      for (char& c : b) c = static_cast<char>('a' + rng() % alphabet);
    }
    CheckAllBounds(a, b);
  }
}

// Real mail: the texts of the dev corpus (the files' bytes, headers and all)
// against mutated copies of themselves and against each other.
TEST(TextEditDistanceWithin, AgreesWithTheFullDistanceOnCorpusTexts) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::path(MW_SOURCE_DIR) / ".." / "shared" / "data" / "mail";
  if (!fs::is_directory(dir)) {
    GTEST_SKIP() << "dev corpus not found under " MW_SOURCE_DIR
                    "/../shared/data/mail (../shared is absent)";
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != "SOURCE.txt")
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 1000u);
  std::mt19937_64 rng(11);
  std::shuffle(files.begin(), files.end(), rng);
  const auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    text.resize(std::min<std::size_t>(text.size(), 6000));
    return text;
  };
  for (std::size_t i = 0; i + 1 < 60; i += 2) {
    const std::string a = read(files[i]);
    const std::string b = read(files[i + 1]);
    CheckAllBounds(a, b);
    CheckAllBounds(
        a, Mutate(a, static_cast<int>(rng() % (a.size() / 10 + 2)), 26, rng));
  }
}

}  // namespace
}  // namespace mw::fingerprint
