// variants/truth.h: the natural near-duplicate rule against its definition,
// fingerprint::TextEditRate (the full distance), and the pairs and bases built
// on it.
#include "variants/truth.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "fingerprint/verify.h"

namespace mw::variants {
namespace {

// `text` with `edits` random single-character edits (substitute, insert or
// delete), so the distance to `text` is at most `edits`.
std::string Edit(std::string text, int edits, std::mt19937_64& rng) {
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = text.empty() ? 0 : rng() % text.size();
    const char c = static_cast<char>('a' + rng() % 26);
    switch (rng() % 3) {
      case 0:
        if (!text.empty()) text[at] = c;
        break;
      case 1:
        text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
        break;
      default:
        if (!text.empty()) text.erase(at, 1);
    }
  }
  return text;
}

std::string Random(std::size_t n, std::mt19937_64& rng) {
  std::string s(n, ' ');
  for (char& c : s) c = static_cast<char>('a' + rng() % 8);
  return s;
}

TEST(NaturalNearDuplicateTest, AgreesWithTheEditRateAroundTheThreshold) {
  std::mt19937_64 rng(7);
  int natural = 0, not_natural = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::size_t n = 1 + rng() % 600;
    const std::string a = Random(n, rng);
    // Edit counts around a rate of 0.1: the distance is about 0.2 n edits.
    const int edits = static_cast<int>(rng() % (n / 3 + 2));
    const std::string b = Edit(a, edits, rng);
    const bool expected = fingerprint::TextEditRate(a, b) < kNaturalEditRate;
    ASSERT_EQ(NaturalNearDuplicate(a, b), expected)
        << "n " << n << " edits " << edits << " rate "
        << fingerprint::TextEditRate(a, b);
    ASSERT_EQ(NaturalNearDuplicate(b, a), expected);
    (expected ? natural : not_natural)++;
  }
  // Both sides of the threshold were exercised.
  EXPECT_GT(natural, 500);
  EXPECT_GT(not_natural, 500);
}

TEST(NaturalNearDuplicateTest, TheBoundaryIsStrict) {
  // 20 characters in all: a distance of 1 is a rate of 0.05, 2 is 0.1.
  EXPECT_TRUE(NaturalNearDuplicate("aaaaaaaaaa", "aaaaaaaaab"));
  EXPECT_FALSE(NaturalNearDuplicate("aaaaaaaaaa", "aaaaaaaabb"));
  // Length alone: 9 against 11 characters is a distance of at least 2.
  EXPECT_FALSE(NaturalNearDuplicate("aaaaaaaaa", "aaaaaaaaaaa"));
  EXPECT_TRUE(NaturalNearDuplicate("", ""));
  EXPECT_FALSE(NaturalNearDuplicate("", "a"));
  EXPECT_TRUE(NaturalNearDuplicate("same text", "same text"));
}

TEST(NaturalNearDuplicateTest, LongTextsFarApartAreCheap) {
  std::mt19937_64 rng(11);
  const std::string a = Random(200000, rng);
  const std::string b = Random(200000, rng);
  EXPECT_FALSE(NaturalNearDuplicate(a, b));
  EXPECT_TRUE(NaturalNearDuplicate(a, Edit(a, 2000, rng)));
}

Corpus MakeCorpus(const std::vector<std::string>& bodies) {
  Corpus c;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    Doc d;
    d.name = "doc" + std::to_string(i);
    d.body = bodies[i];
    d.decoded = bodies[i];
    d.ham = true;
    c.docs.push_back(std::move(d));
  }
  return c;
}

TEST(NaturalPairsTest, FindsExactlyThePairsOfTheDefinition) {
  std::mt19937_64 rng(3);
  std::vector<std::string> bodies;
  for (int family = 0; family < 8; ++family) {
    const std::string base = Random(100 + rng() % 400, rng);
    for (int copy = 0; copy < 4; ++copy) {
      bodies.push_back(
          Edit(base, static_cast<int>(rng() % (base.size() / 4)), rng));
    }
  }
  const Corpus corpus = MakeCorpus(bodies);
  std::vector<std::size_t> all(bodies.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const NaturalPairs pairs(corpus, all);
  std::size_t expected = 0;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    for (std::size_t j = i + 1; j < bodies.size(); ++j) {
      const bool truth =
          fingerprint::TextEditRate(bodies[i], bodies[j]) < kNaturalEditRate;
      EXPECT_EQ(pairs.Contains(i, j), truth) << i << " " << j;
      EXPECT_EQ(pairs.Contains(j, i), truth);
      expected += truth;
    }
  }
  EXPECT_EQ(pairs.size(), expected);
  EXPECT_GT(expected, 0u);
  EXPECT_EQ(pairs.CountWithin(all), expected);
  // The first family alone.
  const std::vector<std::size_t> first = {0, 1, 2, 3};
  std::size_t within = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = i + 1; j < 4; ++j) within += pairs.Contains(i, j);
  }
  EXPECT_EQ(pairs.CountWithin(first), within);
}

TEST(SelectBasesTest, KeepsTheFirstOfEachNearDuplicateFamily) {
  std::mt19937_64 rng(5);
  const std::string x = Random(400, rng), y = Random(400, rng);
  // 0 and 2 are one text, lightly edited; 1 and 3 another.
  const Corpus corpus =
      MakeCorpus({x, y, Edit(x, 5, rng), Edit(y, 5, rng), Random(400, rng)});
  const Selection s = SelectBases(corpus, {2, 0, 1, 3, 4}, 10);
  EXPECT_EQ(s.bases, (std::vector<std::size_t>{2, 1, 4}));
  EXPECT_EQ(s.dropped, 2u);
  const Selection two = SelectBases(corpus, {2, 0, 1, 3, 4}, 2);
  EXPECT_EQ(two.bases, (std::vector<std::size_t>{2, 1}));
}

// A thread's messages share the key whatever their reply markers and list
// tags; other subjects do not.
TEST(ThreadKey, LeavesOutReplyMarkersAndListTags) {
  const std::string key = ThreadKey("[ILUG] Backup solutions");
  EXPECT_EQ(key, "backup solutions");
  EXPECT_EQ(ThreadKey("RE: [ILUG]   Backup\t solutions"), key);
  EXPECT_EQ(ThreadKey("Re: Fwd: re:[ILUG] backup SOLUTIONS "), key);
  EXPECT_NE(ThreadKey("Backup solutions wanted"), key);
  EXPECT_EQ(ThreadKey(""), "");
}

TEST(HalfOf, KeepsAThreadInOneHalfAndSplitsTheCorpus) {
  std::vector<Doc> docs;
  for (int i = 0; i < 400; ++i) {
    Doc d;
    d.name = "ham/" + std::to_string(i);
    d.ham = true;
    // Threads of two: a message and its reply.
    d.subject = std::string(i % 2 ? "Re: " : "") + "topic number " +
                std::to_string(i / 2);
    docs.push_back(d);
  }
  int first = 0;
  for (int i = 0; i < 400; i += 2) {
    EXPECT_EQ(HalfOf(docs[i]), HalfOf(docs[i + 1])) << i;
    first += HalfOf(docs[i]) == 1;
  }
  // About half the threads in each half.
  EXPECT_GT(first, 70);
  EXPECT_LT(first, 130);
  // Without a Subject, a message is its own thread.
  Doc alone;
  alone.name = "ham/none";
  const int h = HalfOf(alone);
  EXPECT_TRUE(h == 1 || h == 2);
}

}  // namespace
}  // namespace mw::variants
