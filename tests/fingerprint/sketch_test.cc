// The word sketch and the sampled word sequence (fingerprint/sketch.h), and
// the words path of Compare they feed.
#include "fingerprint/sketch.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fingerprint/core.h"
#include "fingerprint/fingerprint.h"
#include "fingerprint/simhash.h"

namespace mw::fingerprint {
namespace {

std::string RandomWord(std::mt19937_64& rng) {
  std::string w;
  const std::size_t n = 4 + rng() % 6;
  for (std::size_t i = 0; i < n; ++i) w += static_cast<char>('a' + rng() % 26);
  return w;
}

std::vector<std::string> RandomWords(std::size_t n, std::mt19937_64& rng) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(RandomWord(rng));
  return out;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    out += words[i];
    out += (i % 12 == 11) ? '\n' : ' ';
  }
  return out;
}

// Join's lines, each quoted as a reply quotes its original ("> ").
std::string Quoted(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    out += (i % 12 == 0 ? "> " : " ") + words[i];
    if (i % 12 == 11) out += '\n';
  }
  return out;
}

// A word sequence of 1 to 64 symbols over a 4-letter alphabet, so that two
// of them align with many matches.
Ctph RandomSequence(std::mt19937_64& rng) {
  Ctph c{1, "", ""};
  for (std::size_t i = 0, n = 1 + rng() % 64; i < n; ++i)
    c.sig += static_cast<char>('a' + rng() % 4);
  return c;
}

// The exact Jaccard similarity of two word sets.
double Jaccard(const std::vector<std::string>& a,
               const std::vector<std::string>& b) {
  const std::set<std::string> x(a.begin(), a.end()), y(b.begin(), b.end());
  std::size_t common = 0;
  for (const auto& w : x) common += y.count(w);
  return static_cast<double>(common) /
         static_cast<double>(x.size() + y.size() - common);
}

TEST(Sketch, EmptyTextHasAnEmptySketch) {
  EXPECT_EQ(ComputeSketch(std::string_view("")), WordSketch{});
  EXPECT_EQ(SketchJaccard(WordSketch{}, WordSketch{}), 0.0);
}

TEST(Sketch, OrderAndRepeatsDoNotMatter) {
  const WordSketch a =
      ComputeSketch(std::string_view("alpha beta gamma delta"));
  const WordSketch b =
      ComputeSketch(std::string_view("delta gamma beta alpha alpha beta"));
  EXPECT_EQ(a.slots, b.slots);
  EXPECT_EQ(a.words, 4u);
  EXPECT_EQ(b.words, 6u);
  EXPECT_EQ(SketchJaccard(a, b), 1.0);
}

TEST(Sketch, SlotsNeverHoldTheEmptyMarker) {
  // Each filled bin is the hash of a word of the text, never 0.
  std::mt19937_64 rng(1);
  const std::vector<std::string> words = RandomWords(2000, rng);
  const WordSketch s = ComputeSketch(std::string_view(Join(words)));
  const std::size_t filled = static_cast<std::size_t>(std::count_if(
      s.slots.begin(), s.slots.end(), [](std::uint16_t v) { return v != 0; }));
  EXPECT_EQ(filled, kSketchSlots);  // 2000 words fill all 128 bins
}

TEST(Sketch, EstimatesTheJaccardSimilarity) {
  // Two texts sharing a chosen part of their words: the estimate is within
  // four standard deviations of the true value every time.
  std::mt19937_64 rng(7);
  for (const double share : {0.1, 0.3, 0.5, 0.7, 0.9}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<std::string> a = RandomWords(600, rng);
      std::vector<std::string> b = a;
      for (auto& w : b) {
        if (std::uniform_real_distribution<double>(0, 1)(rng) > share) {
          w = RandomWord(rng) + "x";
        }
      }
      const double truth = Jaccard(a, b);
      const double est =
          SketchJaccard(ComputeSketch(std::string_view(Join(a))),
                        ComputeSketch(std::string_view(Join(b))));
      const double sd = std::sqrt(truth * (1 - truth) / kSketchSlots);
      EXPECT_NEAR(est, truth, 4 * sd + 0.02) << "share " << share;
    }
  }
}

TEST(Sketch, TextAndHashEntryPointsAgree) {
  const std::string text = "one two three, four! five\nsix seven";
  std::vector<std::uint64_t> hashes;
  for (const std::string_view w : Words(text)) {
    hashes.push_back(XXH3_64bits(w.data(), w.size()));
  }
  EXPECT_EQ(ComputeSketch(hashes), ComputeSketch(std::string_view(text)));
  EXPECT_EQ(ComputeWordHashes(text).sketch, ComputeSketch(hashes));
}

TEST(WordSequence, KeepsAtMostSixtyFourSymbolsAndDoublesTheStep) {
  std::mt19937_64 rng(3);
  for (const std::size_t n : {10u, 64u, 65u, 300u, 5000u}) {
    const Ctph seq = ComputeWordHashes(Join(RandomWords(n, rng))).sequence;
    EXPECT_LE(seq.sig.size(), kCtphMaxLength);
    EXPECT_LE(seq.sig2.size(), seq.sig.size());
    EXPECT_TRUE(seq.block_size != 0 &&
                (seq.block_size & (seq.block_size - 1)) == 0);
    if (n >= 300) {
      EXPECT_GT(seq.sig.size(), 16u) << n;
    }
  }
}

TEST(WordSequence, ShortWordsAreLeftOut) {
  const Ctph seq = ComputeWordHashes("a an the of to in is it at").sequence;
  EXPECT_EQ(seq.block_size, 0u);
  EXPECT_TRUE(seq.sig.empty());
}

TEST(WordSequence, DiffCountsDistanceAndRuns) {
  Ctph a{1, "abcdefghijklmnop", ""};  // no 2-step sequence: sig decides
  Ctph b = a;
  EXPECT_EQ(DiffWordSequences(a, b)->distance, 0u);
  EXPECT_EQ(DiffWordSequences(a, b)->runs, 0u);
  // Three separate substitutions: distance 3 in 3 runs.
  b.sig = "aXcdefgYijklmZop";
  auto d = DiffWordSequences(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->distance, 3u);
  EXPECT_EQ(d->runs, 3u);
  EXPECT_EQ(d->length, 32u);
  // One block of three: distance 3 in one run.
  b.sig = "abcdefXYZjklmnop";
  d = DiffWordSequences(a, b);
  EXPECT_EQ(d->distance, 3u);
  EXPECT_EQ(d->runs, 1u);
  // The distance is the Levenshtein distance (Myers agrees).
  std::mt19937_64 rng(5);
  for (int t = 0; t < 500; ++t) {
    const Ctph x = RandomSequence(rng), y = RandomSequence(rng);
    const auto r = DiffWordSequences(x, y);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->distance, MyersDistance(x.sig, y.sig));
    EXPECT_LE(r->runs, r->distance);
  }
  // Steps further apart than a factor 2 do not compare.
  EXPECT_FALSE(DiffWordSequences(Ctph{1, "ab", "a"}, Ctph{4, "ab", "a"}));
}

// The shorter sequence aligned with a prefix of the longer: the longer one's
// end left out (a footer on one copy), as the best such alignment (Myers'
// distance to every prefix is the oracle).
TEST(WordSequence, DiffLeavesTheLongerOnesEndOut) {
  const Ctph a{1, "abcdefghijklmnop", ""};
  Ctph b{1, "abcdefghijklmnopQRSTUVWX", ""};
  for (const bool swap : {false, true}) {
    const auto d = swap ? DiffWordSequences(b, a) : DiffWordSequences(a, b);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->distance, 8u);
    EXPECT_EQ(d->tail, 8u);
    EXPECT_EQ(d->tail_longer, 24u);
    EXPECT_EQ(d->tail_in_first, swap);
    EXPECT_EQ(d->trimmed_distance, 0u);
    EXPECT_EQ(d->trimmed_runs, 0u);
    EXPECT_EQ(d->trimmed_length, 32u);
  }
  // An edit before the footer stays counted.
  b.sig = "abcdeZghijklmnopQRSTUVWX";
  auto d = DiffWordSequences(a, b);
  EXPECT_EQ(d->tail, 8u);
  EXPECT_EQ(d->trimmed_distance, 1u);
  EXPECT_EQ(d->trimmed_runs, 1u);
  // No end to leave out: the trimmed figures are the whole alignment's.
  b.sig = "abcdeZghijklmnop";
  d = DiffWordSequences(a, b);
  EXPECT_EQ(d->tail, 0u);
  EXPECT_EQ(d->trimmed_distance, d->distance);
  EXPECT_EQ(d->trimmed_runs, d->runs);
  EXPECT_EQ(d->trimmed_length, d->length);
  std::mt19937_64 rng(9);
  for (int t = 0; t < 500; ++t) {
    const Ctph x = RandomSequence(rng), y = RandomSequence(rng);
    const auto r = DiffWordSequences(x, y);
    ASSERT_TRUE(r);
    const std::string& shorter = x.sig.size() <= y.sig.size() ? x.sig : y.sig;
    const std::string& longer = x.sig.size() <= y.sig.size() ? y.sig : x.sig;
    std::uint32_t best = MyersDistance(shorter, longer);
    std::size_t best_tail = 0;
    for (std::size_t keep = longer.size(); keep-- > 0;) {
      const std::uint32_t dist =
          MyersDistance(shorter, std::string_view(longer).substr(0, keep));
      if (dist < best) {
        best = dist;
        best_tail = longer.size() - keep;
      }
    }
    EXPECT_EQ(r->trimmed_distance, best) << x.sig << " " << y.sig;
    EXPECT_EQ(r->tail, best_tail) << x.sig << " " << y.sig;
    EXPECT_EQ(r->trimmed_length, x.sig.size() + y.sig.size() - best_tail);
    EXPECT_EQ(r->tail_longer, longer.size());
    EXPECT_EQ(r->tail_in_first, x.sig.size() > y.sig.size());
  }
}

// A spun copy (a quarter of the words replaced, one slot at a time, spread
// over the text) is a duplicate on the words path; the same number of words
// changed in one block, as two mails of one template differ, is not.
TEST(WordsPath, SpreadEditsMatchAndOneBlockDoesNot) {
  std::mt19937_64 rng(11);
  const Options o;
  int spun_found = 0, block_found = 0;
  for (int t = 0; t < 20; ++t) {
    const std::vector<std::string> base = RandomWords(300, rng);
    std::vector<std::string> spun = base, block = base;
    for (std::size_t i = 0; i < spun.size(); i += 4) spun[i] = RandomWord(rng);
    for (std::size_t i = 100; i < 175; ++i) block[i] = RandomWord(rng);
    const Fingerprint fb = Compute(Join(base), o);
    const Comparison cs = Compare(fb, Compute(Join(spun), o), o);
    const Comparison cb = Compare(fb, Compute(Join(block), o), o);
    spun_found += cs.method == Method::kWords;
    block_found += cb.method == Method::kWords;
  }
  EXPECT_GE(spun_found, 18);
  // A chance match of two word symbols (1 in 256) inside the replaced block
  // can split its run in the alignment; rarely, never as a rule.
  EXPECT_LE(block_found, 2);
}

// Busters anywhere in a line (start, middle, end; each copy its own) add
// words the sampled sequence rarely sees: the sequences agree with no run of
// edits while the sketch drops. Such a pair passes when the sketch and the
// word counts stay close; content added in one place changes the count and
// does not. The fingerprints differ only in what the rule reads.
TEST(WordsPath, EqualSequencesNeedACloseSketchAndWordCount) {
  std::mt19937_64 rng(17);
  const Options o;
  const Fingerprint a = Compute(Join(RandomWords(600, rng)), o);
  // b: a with no other path left (not exact, no block, no CTPH, SimHash far),
  // `changed` of a's filled sketch bins given other words, `words` words.
  const auto make = [&](int changed, double words) {
    Fingerprint b = a;
    b.body_sha1[0] ^= 1;
    b.blocks = {};
    b.other_blocks.reset();
    b.ctph = {};
    b.simhash = ~a.simhash;
    for (auto& slot : b.sketch.slots) {
      if (changed > 0 && slot != 0) {
        slot = static_cast<std::uint16_t>(slot % 65535 + 1);
        --changed;
      }
    }
    b.sketch.words = static_cast<std::uint32_t>(words * a.sketch.words);
    return b;
  };
  const Comparison near = Compare(a, make(32, 1.05), o);
  ASSERT_GE(near.sketch, o.words_near_jaccard);
  ASSERT_TRUE(near.words);
  EXPECT_EQ(near.words->distance, 0u);
  EXPECT_EQ(near.method, Method::kWords);
  // The count 1.2 times: within words_length_ratio, past the near ratio.
  EXPECT_NE(Compare(a, make(32, 1.2), o).method, Method::kWords);
  // The sketch under words_near_jaccard.
  const Comparison far = Compare(a, make(48, 1.05), o);
  ASSERT_LT(far.sketch, o.words_near_jaccard);
  ASSERT_GE(far.sketch, o.words_jaccard);
  EXPECT_NE(far.method, Method::kWords);
}

// A personalised copy with a footer: a name in place of the first word of
// every line, and a footer of two fifths of the text on one copy. The
// footer takes the word counts past words_length_ratio; without it the
// copies agree but for the names, so the words path calls them duplicates.
// The same text with only an end added (a quoted original and a reply of a
// sixth of it below) has no edits to spread once the end is left out, and is
// left to the block paths, which measure the end in bytes.
TEST(WordsPath, AnAddedEndIsLeftOutWhenTheRestHasEdits) {
  std::mt19937_64 rng(23);
  Options o;
  Options without = o;
  without.words_tail_length_ratio = 0;
  int personal = 0, personal_without = 0, reply = 0;
  for (int t = 0; t < 20; ++t) {
    const std::vector<std::string> base = RandomWords(300, rng);
    std::vector<std::string> copy = base;
    for (std::size_t i = 0; i < copy.size(); i += 12) copy[i] = RandomWord(rng);
    const std::vector<std::string> footer = RandomWords(100, rng);
    copy.insert(copy.end(), footer.begin(), footer.end());
    // The original quoted line by line, so that no block path matches it.
    const std::string reply_text =
        Quoted(base) + "\n\n" + Join({footer.begin(), footer.begin() + 60});
    const Fingerprint fb = Compute(Join(base), o);
    const Fingerprint fc = Compute(Join(copy), o);
    ASSERT_GT(fc.sketch.words, o.words_length_ratio * fb.sketch.words);
    personal += Compare(fb, fc, o).method == Method::kWords;
    personal_without += Compare(fb, fc, without).method == Method::kWords;
    reply += Compare(fb, Compute(reply_text, o), o).method == Method::kWords;
  }
  // The sample holds one word in eight, so a copy's names show as 0 to 10
  // edits: under three runs, or past words_tail_edit_rate, in a third of them
  // (every line changed, so no block path and no block similarity helps).
  EXPECT_GE(personal, 10);
  EXPECT_EQ(personal_without, 0);
  // A reply's sampled words can split into two runs by a chance match with
  // the original's last ones, which the rule before the end was left out
  // takes for spread edits; rarely, never as a rule (with any edits allowed
  // once the end is left out, all 20 pass).
  EXPECT_LE(reply, 2);
}

// Few edits besides an added end leave few runs, or none in the sample: a
// name in every third line and a footer. Such a copy passes when the block
// lists say the lines were kept; the same copy with every line quoted ("> "),
// as a reply quotes its original, keeps no line and does not pass.
TEST(WordsPath, FewEditsBesidesAnAddedEndNeedTheLinesKept) {
  std::mt19937_64 rng(29);
  const Options o;
  Options without = o;
  without.words_tail_similarity = 2;  // never: the spread rule alone
  int kept = 0, kept_without = 0, quoted = 0;
  for (int t = 0; t < 20; ++t) {
    const std::vector<std::string> base = RandomWords(300, rng);
    std::vector<std::string> copy = base;
    for (std::size_t i = 0; i < copy.size(); i += 36) copy[i] = RandomWord(rng);
    const std::vector<std::string> footer = RandomWords(100, rng);
    copy.insert(copy.end(), footer.begin(), footer.end());
    const std::string quoted_text = Quoted(copy);
    const Fingerprint fb = Compute(Join(base), o);
    const Fingerprint fc = Compute(Join(copy), o);
    kept += Compare(fb, fc, o).method == Method::kWords;
    kept_without += Compare(fb, fc, without).method == Method::kWords;
    quoted += Compare(fb, Compute(quoted_text, o), o).method == Method::kWords;
  }
  // A name shows in the one-in-eight sample with probability ~1/4, so a few
  // copies show three spread runs: the spread rule's, with or without blocks.
  EXPECT_GE(kept, 16);
  EXPECT_LE(kept_without, 3);
  EXPECT_LE(quoted, 3);
}

TEST(WordsPath, DisabledAboveOne) {
  std::mt19937_64 rng(13);
  Options o;
  o.words_jaccard = 1.5;
  const std::vector<std::string> base = RandomWords(300, rng);
  std::vector<std::string> spun = base;
  for (std::size_t i = 0; i < spun.size(); i += 4) spun[i] = RandomWord(rng);
  EXPECT_NE(Compare(Compute(Join(base), o), Compute(Join(spun), o), o).method,
            Method::kWords);
}

}  // namespace
}  // namespace mw::fingerprint
