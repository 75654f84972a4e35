// The variant tier (langid/src/variant.h): the n-gram sum of a written variant
// against its base, what of a text it reads, and when a text is read at all.
#include "langid/src/variant.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "langid/build.h"
#include "langid/model.h"

namespace mw::langid::internal {
namespace {

// nb and en with a word each; nn a variant of nb with a few n-grams (values
// in hundredths: "a" 0.1, "ab" 1, "abc" 2, "abcde" 0.5, "xy" -3, "q" -1.05).
Model VariantModel() {
  std::vector<WordList> lists = {{"nb", {{"ikke", 10}}},
                                 {"en", {{"house", 10}}}};
  std::vector<VariantList> variants = {{"nn",
                                        "nb",
                                        {{"a", 10},
                                         {"ab", 100},
                                         {"abc", 200},
                                         {"abcde", 50},
                                         {"xy", -300},
                                         {"q", -105}}}};
  auto bytes = Build(std::move(lists), std::move(variants), BuildParams{});
  EXPECT_TRUE(bytes.has_value()) << (bytes ? "" : bytes.error().message());
  auto model = Model::FromBytes(std::move(*bytes));
  EXPECT_TRUE(model.has_value()) << (model ? "" : model.error().message());
  return std::move(*model);
}

double Score(const Model& m, std::vector<std::string_view> parts) {
  return VariantScore(parts, m, static_cast<std::size_t>(m.FindLanguage("nn")));
}

TEST(VariantTest, SumsTheValuesOfEveryNgramOfOneToFiveLetters) {
  const Model m = VariantModel();
  // "abcde": a, ab, abc, abcde have values (abcd, b, bc, ... none).
  EXPECT_NEAR(Score(m, {"abcde"}), 0.1 + 1 + 2 + 0.5, 1e-9);
  // Every occurrence counts; "xyz" adds "xy"; a number is no word.
  EXPECT_NEAR(Score(m, {"ab 42 ab xyz"}), 2 * 1.1 - 3, 1e-9);
  // A six-letter n-gram is never looked up: "abcdef" adds what "abcde" does.
  EXPECT_NEAR(Score(m, {"abcdef"}), 3.6, 1e-9);
  // Only Latin words: a Cyrillic "а" (U+0430) is not the letter a.
  EXPECT_EQ(Score(m, {"\xd0\xb0\xd0\xb1"}), 0.0);
  EXPECT_EQ(Score(m, {""}), 0.0);
  EXPECT_EQ(Score(m, {}), 0.0);
}

TEST(VariantTest, ReadsTheFirstBytesOfItsPartsOnly) {
  const Model m = VariantModel();
  // "ab" 1.1 and "q" -1.05: 0.05 a pair, never near the margin.
  std::string pairs;
  for (int i = 0; i < 1000; ++i) pairs += "ab q ";
  // Read up to the last space within kVariantMaxBytes (1024 = 5 * 204 + 4):
  // 205 pairs, no word cut short.
  static_assert(kVariantMaxBytes == 1024);
  EXPECT_NEAR(Score(m, {pairs}), 205 * 0.05, 1e-6);
  // Parts are read in order against one budget: 100 pairs (500 bytes), then
  // up to the last space within the 524 bytes left (524 = 5 * 104 + 4).
  EXPECT_NEAR(Score(m, {pairs.substr(0, 500), pairs}), (100 + 105) * 0.05,
              1e-6);
  // Slices are cut at line breaks too: "abcde" (3.6) on lines of its own
  // (6 bytes each), the first slice cut at the break at 59: ten whole words,
  // 36, past the margin. Cut at 64 it would read an "abcd" (3.1) as well.
  std::string lines;
  for (int i = 0; i < 300; ++i) lines += "abcde\n";
  EXPECT_NEAR(Score(m, {lines}), 10 * 3.6, 1e-9);
}

TEST(VariantTest, StopsOnceTheSumIsDecisive) {
  const Model m = VariantModel();
  std::string many;
  for (int i = 0; i < 2000; ++i) many += "ab ";
  // The first 64-byte slice, cut at the space at 62, holds 21 words: 23.1,
  // past kVariantDecisive (20); nothing more is read.
  static_assert(kVariantDecisive == 20.0);
  EXPECT_NEAR(Score(m, {many}), 21 * 1.1, 1e-9);
  std::string against;
  for (int i = 0; i < 2000; ++i) against += "xy ";
  EXPECT_NEAR(Score(m, {against, many}), 21 * -3.0, 1e-9);
  // A word longer than a slice is read slice by slice, 63 letters of each
  // (0.1 for every "a"), until the margin: 4 slices.
  EXPECT_NEAR(Score(m, {std::string(3000, 'a')}), 4 * 6.3, 1e-9);
}

TEST(VariantTest, ReadsATextWhoseBaseIsAContender) {
  // Candidates 0, 1, 2; base 1.
  const std::vector<double> pure = {4, 1, 0}, shared = {0, 0.5, 0},
                            ngram = {0, 0, 0};
  const auto read = [&](const std::vector<double>& n, std::size_t base,
                        double share) {
    return ReadForVariant(pure, shared, n, base, share,
                          StrongestEvidence(pure, shared, n));
  };
  EXPECT_DOUBLE_EQ(StrongestEvidence(pure, shared, ngram), 4.0);
  EXPECT_TRUE(read(ngram, 1, 0.3));   // 1.5 >= 1.2
  EXPECT_FALSE(read(ngram, 1, 0.4));  // 1.5 < 1.6
  EXPECT_TRUE(read({0, 2, 0}, 1, 0.5));
  // No evidence for the base, or no such candidate: never.
  EXPECT_FALSE(read(ngram, 2, 0.0));
  EXPECT_FALSE(read(ngram, 7, 0.0));
  // The n-gram shares may be absent (a text the tier never scored).
  EXPECT_TRUE(read({}, 0, 1.0));
}

}  // namespace
}  // namespace mw::langid::internal
