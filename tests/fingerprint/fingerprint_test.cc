// Tests for Compute and Compare (fingerprint/src/fingerprint.cc).
#include "fingerprint/fingerprint.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// The same text with its paragraphs wrapped again at `width` columns: every
// line changes, no sentence does.
std::string Rewrap(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t col = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == '\n') {
      out += "\n\n";
      col = 0;
      ++i;
      continue;
    }
    const char c = text[i] == '\n' ? ' ' : text[i];
    if (c == ' ' && col >= width) {
      out += '\n';
      col = 0;
      continue;
    }
    out += c;
    ++col;
  }
  return out;
}

TEST(Compute, BodySizePicksTheKind) {
  const Options o;
  // Small bodies: sentences, and their lines as the other list.
  const Fingerprint small = Compute(Body(4000, 1), o);
  EXPECT_EQ(small.blocks.kind, BlockKind::kSentences);
  ASSERT_TRUE(small.other_blocks.has_value());
  EXPECT_EQ(small.other_blocks->kind, BlockKind::kParagraphs);
  EXPECT_GT(small.blocks.hashes.size(), 10u);
  // Large bodies, beyond the band: lines only.
  const Fingerprint large = Compute(Body(40000, 2), o);
  EXPECT_EQ(large.blocks.kind, BlockKind::kParagraphs);
  EXPECT_FALSE(large.other_blocks.has_value());
  EXPECT_EQ(large.body_bytes, Body(40000, 2).size());
  EXPECT_NE(large.ctph.block_size, 0u);
  EXPECT_NE(large.simhash, 0u);
}

TEST(Compute, BothKindsInsideTheBand) {
  const Options o;
  const Fingerprint above = Compute(Body(22000, 3), o);
  EXPECT_EQ(above.blocks.kind, BlockKind::kParagraphs);
  ASSERT_TRUE(above.other_blocks.has_value());
  EXPECT_EQ(above.other_blocks->kind, BlockKind::kSentences);
  Options no_band = o;
  no_band.paragraph_band = 0;
  EXPECT_FALSE(Compute(Body(22000, 3), no_band).other_blocks.has_value());
}

TEST(Compare, VariantAcrossTheThresholdStillMatches) {
  // Weakness (c): the original just under 20 KB, its variant just over it and
  // wrapped again, so that no line is left as it was: only sentences can match
  // them.
  const std::string original = Body(19500, 4);
  std::string variant = original;
  variant.insert(variant.size() / 2, "\n\n" + Body(1500, 5) + "\n\n");
  variant = Rewrap(variant, 50);
  ASSERT_LT(original.size(), 20u << 10);
  ASSERT_GT(variant.size(), 20u << 10);
  Options o;
  const Comparison c = Compare(Compute(original, o), Compute(variant, o), o);
  ASSERT_TRUE(c.similarity.has_value());
  EXPECT_EQ(c.kind, BlockKind::kSentences);
  EXPECT_GE(*c.similarity, o.duplicate_threshold);
  EXPECT_EQ(c.method, Method::kBlocks);
  // Without the band the variant has lines only, and lines no longer match.
  o.paragraph_band = 0;
  const Comparison no_band =
      Compare(Compute(original, o), Compute(variant, o), o);
  EXPECT_EQ(no_band.kind, BlockKind::kParagraphs);
  EXPECT_LT(no_band.similarity.value_or(0), o.duplicate_threshold);
  EXPECT_FALSE(no_band.duplicate);
}

TEST(Compare, LinesCatchInsertionsInsideParagraphs) {
  // Text inserted between two lines of a wrapped paragraph changes the sentence
  // around it, not the lines: the line list keeps the variant a duplicate.
  const std::string original = Body(3000, 11);
  std::string variant;
  int line = 0;
  for (const char ch : original) {
    variant += ch;
    if (ch == '\n' && ++line % 4 == 0)
      variant += "totally unrelated words inserted here\n";
  }
  const Options o;
  const Comparison c = Compare(Compute(original, o), Compute(variant, o), o);
  EXPECT_TRUE(c.duplicate);
  EXPECT_EQ(c.kind, BlockKind::kParagraphs);
}

TEST(Compare, ShortLineListsAreNotCompared) {
  // Three lines of a shared list footer under two different one-line messages.
  const std::string footer =
      "\n\n_______________________________________________\nexample-list "
      "mailing list\n"
      "example-list@lists.example.org\nhttps://lists.example.org/listinfo/"
      "example-list\n";
  const std::string a = "is the server down again? i cannot log in." + footer;
  const std::string b = "the meeting moved to thursday at ten." + footer;
  const Options o;
  const Comparison c = Compare(Compute(a, o), Compute(b, o), o);
  EXPECT_FALSE(c.duplicate);
  EXPECT_NE(c.kind, BlockKind::kParagraphs);
}

TEST(Compare, ShortBodiesDoNotDecideByCtph) {
  Options o;
  const std::string a =
      "url: http://news.example.com/click/1\ndate: 2002-09-27\n\n(orlando)";
  const std::string b =
      "url: http://news.example.com/click/2\ndate: 2002-10-01\n\n(library)";
  const Comparison c = Compare(Compute(a, o), Compute(b, o), o);
  EXPECT_NE(c.method, Method::kCtph);
  // The same pair with the minimum lifted: CTPH alone would call them
  // duplicates.
  o.ctph_min_bytes = 0;
  o.ctph_edit_rate = 0.5;
  EXPECT_EQ(Compare(Compute(a, o), Compute(b, o), o).method, Method::kCtph);
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

TEST(Compare, DegradedFingerprintsAreNeverDuplicates) {
  // A SHA-1 that OpenSSL could not compute is all zeros, shared by every such
  // failure; a degraded fingerprint matches nothing, itself included, by any
  // method. (OpenSSL cannot be made to fail here cleanly, so the flag is set
  // by hand.)
  const Options o;
  const Fingerprint a = Compute(Body(3000, 7), o);
  ASSERT_FALSE(a.degraded);
  ASSERT_TRUE(Compare(a, a, o).duplicate);
  Fingerprint degraded = a;
  degraded.degraded = true;
  const Fingerprint& d = degraded;
  for (const auto& [x, y] :
       {std::pair{&d, &a}, std::pair{&a, &d}, std::pair{&d, &d}}) {
    const Comparison c = Compare(*x, *y, o);
    EXPECT_FALSE(c.duplicate);
    EXPECT_EQ(c.method, Method::kNone);
    // The scores are still there, for logs.
    EXPECT_EQ(c.hamming, 0u);
    ASSERT_TRUE(c.similarity.has_value());
    EXPECT_DOUBLE_EQ(*c.similarity, 1.0);
  }
}

TEST(Compare, FoldsMakePersonalisedCopiesExact) {
  Options o;
  o.folds.numbers = true;
  o.folds.greetings = true;
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

// Two fingerprints built by hand: 10 sentence blocks of which the last
// `shared` agree (the last, so that the trailer path, which looks at leading
// blocks, stays out), CTPH signatures `edits` substitutions apart (of 40
// symbols each), SimHashes `bits` apart.
std::pair<Fingerprint, Fingerprint> Pair(int shared, int edits, int bits) {
  Fingerprint a;
  Fingerprint b;
  a.body_bytes = b.body_bytes = 4000;
  a.body_sha1[0] = 1;
  std::vector<std::string> ba;
  std::vector<std::string> bb;
  for (int i = 0; i < 10; ++i) {
    ba.push_back("block " + std::to_string(i));
    bb.push_back(i >= 10 - shared ? ba.back() : "other " + std::to_string(i));
  }
  a.blocks = HashBlocks(ba, BlockKind::kSentences);
  b.blocks = HashBlocks(bb, BlockKind::kSentences);
  a.ctph = {.block_size = 96, .sig = std::string(40, 'A'), .sig2 = "x"};
  b.ctph = a.ctph;
  for (int e = 0; e < edits; ++e)
    b.ctph.sig[static_cast<std::size_t>(2 * e)] = 'B';
  b.ctph.sig2 = "y";
  a.simhash = 0x5555555555555555ULL;
  b.simhash = a.simhash ^ ((std::uint64_t{1} << bits) - 1);
  return {a, b};
}

TEST(Compare, CtphCandidateConfirmedByTheOtherTwo) {
  const Options o;
  // 5 of 10 blocks, CTPH rate 8/80 = 0.1 (a candidate: below 3P but not P), 8
  // bits apart.
  auto [a, b] = Pair(5, 8, 8);
  const Comparison c = Compare(a, b, o);
  ASSERT_TRUE(c.similarity && c.edit_rate);
  EXPECT_LT(*c.similarity, o.duplicate_threshold);
  EXPECT_GE(*c.similarity, o.confirm_similarity);
  EXPECT_DOUBLE_EQ(*c.edit_rate, 0.1);
  EXPECT_EQ(c.hamming, 8u);
  EXPECT_TRUE(c.duplicate);
  EXPECT_EQ(c.method, Method::kCtph);
  // Each confirmation is needed: too few shared blocks, too far in CTPH,
  // SimHash too far.
  auto [a1, b1] = Pair(3, 8, 8);
  EXPECT_FALSE(Compare(a1, b1, o).duplicate);
  auto [a2, b2] = Pair(5, 13, 8);
  EXPECT_FALSE(Compare(a2, b2, o).duplicate);
  auto [a3, b3] = Pair(5, 8, 13);
  EXPECT_FALSE(Compare(a3, b3, o).duplicate);
  // And the path can be switched off.
  Options off = o;
  off.confirm_similarity = 1.1;
  EXPECT_FALSE(Compare(a, b, off).duplicate);
}

TEST(Compare, LinesInsertedInManyPlacesAreContained) {
  // A wrapped body of some twenty lines, and a copy with an unrelated line
  // inserted after every fifth line: every original line is still there.
  const std::string base = Body(1500, 17);
  std::string variant;
  std::size_t line = 0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    variant += base[i];
    if (base[i] == '\n' && ++line % 5 == 0) {
      variant += "zebra quokka " + std::to_string(line) + " narwhal ibex\n";
    }
  }
  // Only the containment path may decide.
  Options o;
  o.duplicate_threshold = 1.1;
  o.confirm_similarity = 1.1;
  o.ctph_edit_rate = 0;
  o.simhash_max_distance = 0;
  const Fingerprint a = Compute(base, o);
  const Fingerprint b = Compute(variant, o);
  const Comparison c = Compare(a, b, o);
  ASSERT_TRUE(c.containment);
  EXPECT_DOUBLE_EQ(*c.containment, 1.0);
  EXPECT_LE(c.hamming, o.containment_hamming);
  EXPECT_TRUE(c.duplicate);
  EXPECT_EQ(c.method, Method::kContainment);
  EXPECT_EQ(Compare(b, a, o).method, Method::kContainment);
  // The length guard: the base inside a text twice its size is not a copy.
  const Fingerprint doubled = Compute(base + "\n\n" + Body(1500, 18), o);
  const Comparison d = Compare(a, doubled, o);
  EXPECT_FALSE(d.containment.value_or(0) >= o.containment_threshold);
  // And the path can be switched off.
  Options off = o;
  off.containment_threshold = 1.1;
  EXPECT_FALSE(Compare(a, b, off).duplicate);
}

TEST(Compare, ContainmentLooksAtShortLineLists) {
  // Five lines, one more line inserted in the middle: too few lines for the
  // similarity (min_paragraph_blocks), enough for the containment path.
  const std::string base =
      "the quarterly report is attached\nplease read it before monday\n"
      "we will discuss the budget first\nthe new project plan comes second\n"
      "see you all at the meeting\n";
  std::string variant = base;
  variant.insert(variant.find("we will"), "zebra quokka narwhal ibex\n");
  Options o;
  o.duplicate_threshold = 1.1;
  o.confirm_similarity = 1.1;
  o.ctph_edit_rate = 0;
  o.simhash_max_distance = 0;
  o.reorder_min_words = 0;
  o.containment_length_ratio = 1.5;
  o.containment_hamming = 64;
  const Fingerprint a = Compute(base, o);
  const Fingerprint b = Compute(variant, o);
  const Comparison c = Compare(a, b, o);
  ASSERT_TRUE(c.containment);
  EXPECT_DOUBLE_EQ(*c.containment, 1.0);
  EXPECT_EQ(c.method, Method::kContainment);
  Options longer = o;
  longer.containment_min_lines = 6;
  const Comparison d = Compare(a, b, longer);
  EXPECT_LT(d.containment.value_or(0), 1.0);
  EXPECT_NE(d.method, Method::kContainment);
}

TEST(Compare, OneTextWithDifferentFootersIsATrailerDuplicate) {
  // A short message: a 130-byte footer takes the similarity (4 of 8 blocks),
  // the containment length ratio and the SimHash out of range.
  const std::string base =
      "the quarterly report is attached. please read it before the meeting "
      "on monday. we will discuss the budget first and the new project plan "
      "second. bring your own numbers, and the figures from the last "
      "quarter if you have them.\n";
  const std::string list_footer =
      "\n_______________________________________________\ndiscussion mailing "
      "list\ndiscussion@lists.example.org\nhttp://lists.example.org/listinfo\n";
  const std::string phone_footer =
      "\nsent from my mobile device. please excuse brevity and typos.\n";
  // Only the trailer path may decide.
  Options o;
  o.duplicate_threshold = 1.1;
  o.confirm_similarity = 1.1;
  o.ctph_edit_rate = 0;
  o.simhash_max_distance = 0;
  o.containment_threshold = 1.1;
  o.reorder_min_words = 0;
  const Fingerprint plain = Compute(base, o);
  const Fingerprint listed = Compute(base + list_footer, o);
  const Fingerprint phoned = Compute(base + phone_footer, o);
  for (const auto& [a, b] :
       {std::pair{&plain, &listed}, std::pair{&listed, &plain},
        std::pair{&listed, &phoned}}) {
    const Comparison c = Compare(*a, *b, o);
    EXPECT_EQ(c.method, Method::kTrailer);
    EXPECT_TRUE(c.duplicate);
  }
  // Another text under the same footer shares no leading block.
  const Fingerprint other = Compute(
      "the new project plan is attached. it replaces the one from last week. "
      "comments by friday please.\n" +
          list_footer,
      o);
  EXPECT_FALSE(Compare(listed, other, o).duplicate);
  // A tail longer than the shared part is more than a footer.
  const Fingerprint grown = Compute(
      base +
          "\nand here is a long second part that says more than the "
          "first: the plan, the budget, the people, the dates, the risks, "
          "and what we do about each of them in the next quarter. then the "
          "second half: who writes the minutes, where we meet, and which "
          "of last year's promises we still owe the board.\n",
      o);
  EXPECT_NE(Compare(plain, grown, o).method, Method::kTrailer);
  // Fewer shared blocks (4 sentences) than trailer_min_blocks, and 0
  // switches the path off.
  Options strict = o;
  strict.trailer_min_blocks = 5;
  EXPECT_NE(Compare(plain, listed, strict).method, Method::kTrailer);
  Options off = o;
  off.trailer_min_blocks = 0;
  EXPECT_NE(Compare(plain, listed, off).method, Method::kTrailer);
  // Footers longer than trailer_max_bytes are not footers.
  Options tight = o;
  tight.trailer_max_bytes = 100;
  EXPECT_NE(Compare(plain, listed, tight).method, Method::kTrailer);
}

TEST(Compare, ShuffledSentencesAreReordered) {
  // Two paragraphs of sentences, each shuffled and wrapped again: every line
  // changes, and the last, unterminated fragment joins another sentence.
  const std::string base =
      "the quarterly report is attached to this message. please read it\n"
      "before the meeting on monday. we will discuss the budget first. the\n"
      "new project plan comes second\n\n"
      "thanks to everyone who sent notes. the team did very good work this\n"
      "week. see you all soon\n";
  const std::string shuffled =
      "the new project plan comes second we will discuss the budget\n"
      "first. please read it before the meeting on monday. the quarterly\n"
      "report is attached to this message.\n\n"
      "see you all soon the team did very good work this week. thanks to\n"
      "everyone who sent notes.\n";
  Options o;
  const Fingerprint a = Compute(base, o);
  const Fingerprint b = Compute(shuffled, o);
  EXPECT_EQ(a.word_bag, b.word_bag);
  const Comparison c = Compare(a, b, o);
  EXPECT_LT(c.similarity.value_or(0), o.duplicate_threshold);
  EXPECT_TRUE(c.duplicate);
  EXPECT_EQ(c.method, Method::kReordered);
  // The equal-bag rule alone from here (the rule for edits besides the new
  // order has its own test below).
  Options bag = o;
  bag.reorder_sketch = 2;
  ASSERT_EQ(Compare(a, b, bag).method, Method::kReordered);
  // One word changed: not the same bag.
  std::string changed = shuffled;
  changed.replace(changed.find("budget"), 6, "salary");
  EXPECT_NE(Compare(a, Compute(changed, o), bag).method, Method::kReordered);
  // Too few words, the Hamming guard, and the switch.
  Options few = bag;
  few.reorder_min_words = a.word_bag.words + 1;
  EXPECT_NE(Compare(a, b, few).method, Method::kReordered);
  ASSERT_GT(c.hamming, 0u);
  Options near = bag;
  near.reorder_hamming = c.hamming - 1;
  EXPECT_NE(Compare(a, b, near).method, Method::kReordered);
  Options off = o;
  off.reorder_min_words = 0;
  EXPECT_NE(Compare(a, b, off).method, Method::kReordered);
}

// Sentences shuffled with edits besides the new order: a greeting, a
// footer, a word inserted into every fourth sentence. The bags differ, the
// lines and a quarter of the sentences changed, but most words are kept, the
// other sentences are there verbatim and the SimHash stays close: reordered.
// Two mails of one template, which share a few sentences and little else, are
// not.
TEST(Compare, ShuffledSentencesWithEditsAreReordered) {
  std::mt19937_64 rng(31);
  const auto word = [&rng] {
    std::string w;
    for (std::size_t i = 0, n = 4 + rng() % 6; i < n; ++i)
      w += static_cast<char>('a' + rng() % 26);
    return w;
  };
  const auto sentence = [&word] {
    std::string out = word();
    for (int j = 1; j < 9; ++j) out += " " + word();
    return out + ".";
  };
  const auto text = [](const std::vector<std::string>& sentences) {
    std::string out;
    for (std::size_t i = 0; i < sentences.size(); ++i) {
      out += sentences[i];
      out += i % 2 == 1 ? "\n" : " ";
    }
    return out;
  };
  std::vector<std::string> sentences;
  for (int i = 0; i < 30; ++i) sentences.push_back(sentence());
  std::vector<std::string> edited = sentences;
  std::shuffle(edited.begin(), edited.end(), rng);
  for (std::size_t i = 0; i < edited.size(); i += 4) {
    edited[i].insert(edited[i].find(' '), " " + word());
  }
  const Options o;
  const Fingerprint a = Compute(text(sentences), o);
  const Fingerprint b =
      Compute("dear reader.\n\n" + text(edited) + "\n\nunsubscribe here.\n", o);
  const Comparison c = Compare(a, b, o);
  ASSERT_NE(a.word_bag, b.word_bag);
  EXPECT_LT(c.containment.value_or(0), o.containment_threshold);
  EXPECT_GE(c.sketch, o.reorder_sketch);
  EXPECT_EQ(c.method, Method::kReordered);
  // Each guard.
  Options sketch = o;
  sketch.reorder_sketch = c.sketch + 0.01;
  EXPECT_NE(Compare(a, b, sketch).method, Method::kReordered);
  Options containment = o;
  containment.reorder_containment = c.containment.value_or(0) + 0.01;
  EXPECT_NE(Compare(a, b, containment).method, Method::kReordered);
  ASSERT_GT(c.hamming, 0u);
  Options hamming = o;
  hamming.reorder_near_hamming = c.hamming - 1;
  EXPECT_NE(Compare(a, b, hamming).method, Method::kReordered);
  Options off = o;
  off.reorder_min_words = 0;
  EXPECT_NE(Compare(a, b, off).method, Method::kReordered);
  // A template: four sentences shared, ten of other content.
  std::vector<std::string> other(sentences.begin(), sentences.begin() + 4);
  for (int i = 0; i < 10; ++i) other.push_back(sentence());
  EXPECT_FALSE(Compare(a, Compute(text(other), o), o).duplicate);
}

TEST(MethodName, Names) {
  EXPECT_EQ(MethodName(Method::kExact), "exact");
  EXPECT_EQ(MethodName(Method::kBlocks), "blocks");
  EXPECT_EQ(MethodName(Method::kContainment), "containment");
  EXPECT_EQ(MethodName(Method::kReordered), "reordered");
  EXPECT_EQ(MethodName(Method::kCtph), "ctph");
  EXPECT_EQ(MethodName(Method::kSimHash), "simhash");
}

}  // namespace
}  // namespace mw::fingerprint
