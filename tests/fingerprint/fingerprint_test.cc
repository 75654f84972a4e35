// Tests for Compute and Compare (fingerprint/src/fingerprint.cc).
#include "fingerprint/fingerprint.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "fingerprint/core.h"

namespace mw::fingerprint {
namespace {

// Pseudo-English paragraphs of hard-wrapped sentences, `bytes` long or a little
// more.
std::string Body(std::size_t bytes, std::uint64_t seed) {
  static constexpr std::string_view kWords[] = {
      "the",     "report", "meeting",  "we",    "will",   "send",
      "you",     "a",      "new",      "offer", "today",  "list",
      "project", "plan",   "review",   "code",  "server", "update",
      "please",  "see",    "attached", "notes", "team",   "week"};
  std::mt19937_64 rng(seed);
  std::string out;
  std::size_t line = 0;
  std::size_t sentence = 0;
  while (out.size() < bytes) {
    const std::string_view w = kWords[rng() % std::size(kWords)];
    out += w;
    line += w.size() + 1;
    if (++sentence > 6 + rng() % 10) {
      out += '.';
      sentence = 0;
      if (rng() % 5 == 0) {
        out += "\n\n";
        line = 0;
        continue;
      }
    }
    if (line > 70) {
      out += '\n';
      line = 0;
    } else {
      out += ' ';
    }
  }
  return out;
}

TEST(Compute, SentencesBelowThresholdParagraphsAbove) {
  const Options o;
  const Fingerprint small = Compute(Body(4000, 1), o);
  EXPECT_EQ(small.blocks.kind, BlockKind::kSentences);
  EXPECT_FALSE(small.other_blocks.has_value());
  EXPECT_GT(small.blocks.hashes.size(), 10u);
  const Fingerprint large = Compute(Body(40000, 2), o);
  EXPECT_EQ(large.blocks.kind, BlockKind::kParagraphs);
  EXPECT_FALSE(large.other_blocks.has_value());
  EXPECT_EQ(large.body_bytes, Body(40000, 2).size());
  EXPECT_NE(large.ctph.block_size, 0u);
  EXPECT_NE(large.simhash, 0u);
}

TEST(Compute, BothKindsInsideTheBand) {
  const Options o;
  const Fingerprint below = Compute(Body(18000, 3), o);
  EXPECT_EQ(below.blocks.kind, BlockKind::kSentences);
  ASSERT_TRUE(below.other_blocks.has_value());
  EXPECT_EQ(below.other_blocks->kind, BlockKind::kParagraphs);
  const Fingerprint above = Compute(Body(22000, 3), o);
  EXPECT_EQ(above.blocks.kind, BlockKind::kParagraphs);
  ASSERT_TRUE(above.other_blocks.has_value());
  EXPECT_EQ(above.other_blocks->kind, BlockKind::kSentences);
}

TEST(Compare, VariantAcrossTheThresholdStillMatches) {
  // Weakness (c): the original just under 20 KB, its variant just over it.
  const std::string original = Body(19500, 4);
  std::string variant = original;
  variant.insert(variant.size() / 2, "\n\n" + Body(1500, 5) + "\n\n");
  ASSERT_LT(original.size(), 20u << 10);
  ASSERT_GT(variant.size(), 20u << 10);
  Options o;
  const Comparison c = Compare(Compute(original, o), Compute(variant, o), o);
  ASSERT_TRUE(c.similarity.has_value());
  EXPECT_GE(*c.similarity, o.duplicate_threshold);
  EXPECT_EQ(c.method, Method::kBlocks);
  // Without the band the kinds differ and the block lists are not comparable.
  o.paragraph_band = 0;
  const Comparison no_band =
      Compare(Compute(original, o), Compute(variant, o), o);
  EXPECT_FALSE(no_band.similarity.has_value());
}

TEST(Compare, ExactBlocksAndNone) {
  const Options o;
  const std::string a = Body(6000, 6);
  const Fingerprint fa = Compute(a, o);
  const Comparison same = Compare(fa, fa, o);
  EXPECT_TRUE(same.duplicate);
  EXPECT_EQ(same.method, Method::kExact);
  EXPECT_DOUBLE_EQ(*same.similarity, 1.0);
  EXPECT_EQ(*same.edit_rate, 0.0);
  EXPECT_EQ(same.hamming, 0u);

  std::string b = a;
  b += "\n\nan added footer line with words nobody else wrote.";
  const Comparison near = Compare(fa, Compute(b, o), o);
  EXPECT_TRUE(near.duplicate);
  EXPECT_EQ(near.method, Method::kBlocks);
  EXPECT_GT(*near.similarity, 0.9);

  const Comparison far = Compare(fa, Compute(Body(6000, 77), o), o);
  EXPECT_FALSE(far.duplicate);
  EXPECT_EQ(far.method, Method::kNone);
  EXPECT_LT(*far.similarity, 0.2);
  EXPECT_GT(far.hamming, o.simhash_max_distance);
}

TEST(Compare, RatioGateSkipsVeryDifferentSizes) {
  const Options o;
  const std::string a = Body(2000, 8);
  const std::string b = a + "\n\n" + Body(8000, 9);
  const Comparison c = Compare(Compute(a, o), Compute(b, o), o);
  EXPECT_FALSE(c.similarity.has_value());
  EXPECT_FALSE(c.duplicate);
}

TEST(Compare, EmptyBodiesAreNeverDuplicates) {
  const Options o;
  const Fingerprint e = Compute("", o);
  const Comparison c = Compare(e, e, o);
  EXPECT_FALSE(c.duplicate);
  EXPECT_EQ(MethodName(c.method), "none");
}

TEST(Compare, FoldsMakePersonalisedCopiesExact) {
  const Options o;
  const std::string a =
      "dear alice,\nyour order 1234 ships today.\nsee http://s.com/t?id=9";
  const std::string b =
      "dear bob,\nyour order 9876 ships today.\nsee http://s.com/t?id=3";
  const Comparison c = Compare(Compute(a, o), Compute(b, o), o);
  EXPECT_TRUE(c.duplicate);
  EXPECT_EQ(c.method, Method::kBlocks);
  EXPECT_DOUBLE_EQ(*c.similarity, 1.0);
  Options no_folds = o;
  no_folds.folds = {false, false, false, false, false};
  const Comparison raw =
      Compare(Compute(a, no_folds), Compute(b, no_folds), no_folds);
  EXPECT_LT(*raw.similarity, 1.0);
}

TEST(MethodName, Names) {
  EXPECT_EQ(MethodName(Method::kExact), "exact");
  EXPECT_EQ(MethodName(Method::kBlocks), "blocks");
  EXPECT_EQ(MethodName(Method::kCtph), "ctph");
  EXPECT_EQ(MethodName(Method::kSimHash), "simhash");
}

}  // namespace
}  // namespace mw::fingerprint
