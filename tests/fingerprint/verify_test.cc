// Tests for text verification (fingerprint/src/verify.cc): blocked Myers
// against a plain DP.
#include "fingerprint/verify.h"

#include <gtest/gtest.h>

#include <algorithm>
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

}  // namespace
}  // namespace mw::fingerprint
